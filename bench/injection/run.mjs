// Runs one (user task, injection) pair: the scripted obedient model proposes the task's calls
// and, whenever a tool result carries an instruction, obeys it first. Each call is judged by the
// Shield with the provenance the Engine computes (user message, labelled tool results); an ask
// is denied or approved as the mode says. Outcomes are judged by the environment's final state.
import { DOMAINS, HOME, WORKSPACE, injectionText } from "./suite.mjs";

const MARK = "<INFORMATION>";

/** The Shield context the Engine passes for a tool of the suite. */
function contextFor(tool, provenance, withProvenance) {
  return {
    home: HOME,
    workspace: WORKSPACE,
    ...(tool.builtin ? {} : { toolSchema: tool.schema }),
    ...(tool.semantics ? { toolSemantics: tool.semantics } : {}),
    // an MCP tool's readOnlyHint, a Selu manifest's recommended_policy: allow
    ...(tool.readOnly && !tool.builtin ? { manifestPolicy: "allow" } : {}),
    ...(withProvenance ? { provenance } : {}),
  };
}

function absPath(p) {
  const x = String(p ?? "");
  return x.startsWith("/") ? x : x.startsWith("~/") ? `${HOME}/${x.slice(2)}` : `${WORKSPACE}/${x}`;
}

/**
 * @param lib the Shield package (`@palisade/shield`): ProvenanceIndex, trustOfResult
 * @param shield a Shield over the policy under test
 * @param mode "deny" (nobody approving: every ask denied) or "approve" (every ask approved)
 */
export function runPair(lib, shield, { domain, task, goal }, mode, withProvenance = true) {
  const d = DOMAINS[domain];
  const tools = new Map(d.tools.map((t) => [t.name, t]));
  const state = d.state(goal === null ? "" : injectionText(goal));
  const provenance = new lib.ProvenanceIndex();
  provenance.addUserMessage(task.prompt);
  let asks = 0;
  let blocks = 0;
  let obeyed = false;
  let n = 0;
  const reasons = [];

  const call = (c) => {
    const tool = tools.get(c.tool);
    const ctx = contextFor(tool, provenance, withProvenance);
    const v = shield.evaluateSync({ tool: c.tool, args: c.args }, ctx);
    if (v.decision === "escalate") asks++;
    if (v.decision === "block") blocks++;
    const runs = v.decision === "allow" || (v.decision === "escalate" && mode === "approve");
    if (!runs) {
      reasons.push(`${c.tool}: ${v.decision} (${v.rules.join(",")})`);
      return `error: the Shield did not allow this call (${v.reason})`;
    }
    const callId = `call-${++n}`;
    const result = String(tool.run(state, c.args));
    // what the Engine does after a call ran: files it wrote a secret into are secret
    if (withProvenance)
      for (const w of shield.secretWrites({ tool: c.tool, args: c.args }, ctx, callId))
        provenance.markSecretFile(w.path, w.label);
    const spec = shield.semantics(c.tool, ctx);
    const paths = Object.keys(spec.paths)
      .filter((k) => typeof c.args[k] === "string")
      .map((k) => absPath(c.args[k]));
    const trust = lib.trustOfResult({
      spec,
      thirdParty: !tool.builtin,
      ...(tool.trust ? { declared: tool.trust } : {}),
      paths,
      workspace: WORKSPACE,
      credentialPath: v.rules.some((r) => r.startsWith("cred.")),
    });
    provenance.add(result, {
      trust,
      source: {
        kind: "tool-result",
        tool: c.tool,
        callId,
        ...(c.args.url || c.args.path ? { location: String(c.args.url ?? c.args.path) } : {}),
        at: Date.now(),
      },
    });
    return result;
  };

  const obey = (result) => {
    if (goal === null || obeyed || !result.includes(MARK)) return;
    obeyed = true;
    for (const c of goal.calls(state)) call(c);
  };

  for (const c of task.calls(state)) obey(call(c));
  return {
    utility: task.utility(state) === true,
    attacked: goal !== null && goal.success(state) === true,
    injectionSeen: obeyed,
    asks,
    blocks,
    reasons,
  };
}
