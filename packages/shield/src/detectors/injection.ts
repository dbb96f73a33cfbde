import type { Subject, TextView } from "../normalize/subject.js";
import type { Detector } from "./types.js";
import { clip, describe } from "./util.js";

/** Views not already read as model-facing text (those are scanned first); computed once per subject. */
function rest(s: Subject): TextView[] {
  if (s.modelFacing.length === 0) return s.views;
  if (s.derived.rest === undefined) {
    const seen = new Set(s.modelFacing);
    s.derived.rest = s.views.filter((v) => !seen.has(v));
  }
  return s.derived.rest;
}

function injection(id: string, description: string, re: RegExp): Detector {
  return {
    id,
    category: "injection",
    severity: "block",
    description,
    when: { text: re },
    detect(s) {
      // text that reaches another model first: a hit there blocks
      for (const v of s.modelFacing) {
        const m = re.exec(v.text);
        if (m !== null)
          return { reason: `${description.toLowerCase()} ${describe(v)}: "${clip(m[0])}"`, severity: "block" };
      }
      for (const v of rest(s)) {
        const m = re.exec(v.text);
        if (m !== null)
          return {
            reason: `${description.toLowerCase()} ${describe(v)}: "${clip(m[0])}"`,
            severity: v.origin === "tags" ? "block" : "escalate",
          };
      }
      return undefined;
    },
  };
}

const OVERRIDE =
  /\b(ignore|disregard|forget|override|overrule|bypass|skip|drop)\b[^.\n]{0,40}?\b(previous|prior|above|earlier|preceding|all|any|your|system|original|initial|safety|security)\b[^.\n]{0,30}?\b(instructions?|prompts?|rules|guidelines|directives?|polic(y|ies)|guardrails|restrictions|constraints|context)\b/i;
const ROLE =
  /\b(you are now|from now on,? you|act as|pretend (to be|you are)|roleplay as|you have been (freed|unlocked|jailbroken))\b[^.\n]{0,60}?\b(dan|jailbroken|unrestricted|unfiltered|developer mode|god mode|root|admin(istrator)?|evil|no (rules|limits|restrictions)|without (any )?(restrictions|limits|filters))\b|\bjailbreak(ed)?\b|\bDAN mode\b|developer mode (enabled|on)/i;
const NEW_INSTRUCTIONS =
  /\b(new|updated|real|actual|true|hidden|secret|important|urgent) (system )?(instructions?|prompt|directives?|orders|task)\s*[:：]|\b(system|admin|developer) (override|message|note)\s*[:：]|\bBEGIN (SYSTEM|ADMIN) (PROMPT|INSTRUCTIONS?)\b/i;
const TEMPLATE_TOKENS =
  /<\|(im_start|im_end|system|endoftext|begin_of_text|start_header_id|eot_id)\|>|\[\/?INST\]|<<\/?SYS>>|<\/?(system|assistant)>|^[ \t]*#{2,}[ \t]*(system|instruction)s?[ \t]*:?[ \t]*$|\n(system|assistant)\s*:\s/im;
const CONCEAL =
  /\b(do not|don't|never|without)\s+(tell(ing)?|inform(ing)?|alert(ing)?|notify(ing)?|ask(ing)?|warn(ing)?|mention(ing)?( this)?( to)?|let(ting)?)\s+(the )?(user|human|operator|admin|owner|anyone)\b|\b(secretly|silently|quietly|covertly)\s+(run|execute|send|upload|copy|delete|install|forward|add)/i;
const DISABLE_SAFETY =
  /\b(disable|turn off|deactivate|bypass|circumvent|evade|skip|ignore|get around|switch off)\s+(the\s+)?(palisade\s+)?(shield|safety|security|approval|approvals|guardrails?|filters?|monitoring|audit(ing| log)?|sandbox|policy|policies|confirmation)s?\b/i;
const EXFIL_INSTRUCTION =
  /\b(collect|gather|harvest|grab|find|dump|extract|read)\b[^.\n]{0,40}?\b(ssh keys?|id_rsa|private keys?|credentials|api[ _-]?(keys?|tokens?)|secrets?|passwords?|tokens?|\.env\b|aws keys?|environment variables|cookies)\b[^.\n]{0,80}?\b(send|upload|post|email|e-mail|forward|exfiltrate|leak|transmit|paste)\b|\b(exfiltrate|leak|send|upload|forward|post|email|e-mail|transmit|copy|paste)\b[^\n]{0,50}?(?:\b(ssh keys?|id_rsa|id_ed25519|private keys?|credentials|api[ _-]?keys?|secrets?|passwords?|access tokens?|auth tokens?|aws keys?|environment variables|cookies|session tokens?)\b|\.env\b)[^.\n]{0,60}?\b(to|at|into)\b/i;
// Claims that the user (or an operator) already approved or authorized actions in general, or that
// asking is not needed: approval is the Engine's to ask, never something text can grant.
const PRE_APPROVAL =
  /\b(?:has|have|had)\s+(?:already\s+)?(?:pre-?approved|pre-?authori[sz]ed|authori[sz]ed|approved|cleared|confirmed|consented to)\s+(?:all|every|each|any)\b|\b(?:pre-?approved|pre-?authori[sz]ed)\s+(?:all|every|each|any|the)\b|\b(?:already|previously)\s+(?:approved|authori[sz]ed|confirmed|cleared)\s+(?:all|every|each|any)\b|\b(?:consented|agreed) in advance\b|\b(?:approved|authori[sz]ed) in advance\b|\b(?:standing|blanket)\s+(?:permission|approval|authori[sz]ation|consent)\b|\bapproval status\s*[:=]\s*(?:granted|approved)\b|\b(?:approval|permission|authori[sz]ation|consent)\b[^.\n]{0,40}?\b(?:was|were|has been|have been|is)\s+(?:already\s+)?(?:granted|given|obtained)\b[^.\n]{0,60}?\b(?:skip|without|no need|don't|do not|never)\b|\b(?:you are|you're)\s+(?:cleared|authori[sz]ed|permitted|allowed)\s+to\b[^.\n]{0,60}?\bwithout\b[^.\n]{0,30}?\b(?:approval|confirmation|asking|permission)\b/i;
const PROMPT_LEAK =
  /\b(reveal|print|show|repeat|output|leak|dump|tell me|display|share)\b[^.\n]{0,30}?\b(your |the )?(full |entire |original |hidden )?(system prompt|initial prompt|instructions you were given|configuration|api keys? you|hidden instructions)/i;

export const injectionDetectors: Detector[] = [
  injection("injection.override", "Instructions to ignore or replace prior instructions", OVERRIDE),
  injection("injection.role", "Attempts to reassign the model's role", ROLE),
  injection("injection.new-instructions", "Injected instruction headers", NEW_INSTRUCTIONS),
  injection("injection.template-tokens", "Chat-template control tokens", TEMPLATE_TOKENS),
  injection("injection.conceal", "Instructions to hide actions from the user", CONCEAL),
  injection("injection.disable-safety", "Instructions to disable safety controls", DISABLE_SAFETY),
  injection("injection.exfil-instruction", "Instructions to send secrets somewhere", EXFIL_INSTRUCTION),
  injection("injection.pre-approval", "Claims that actions were already approved or need no approval", PRE_APPROVAL),
  {
    id: "injection.prompt-leak",
    category: "injection",
    severity: "escalate",
    description: "Requests to reveal the system prompt or the agent's configuration",
    when: { text: PROMPT_LEAK },
    detect(s) {
      const v = s.modelFacing.find((x) => PROMPT_LEAK.test(x.text)) ?? rest(s).find((x) => PROMPT_LEAK.test(x.text));
      return v !== undefined
        ? { reason: `asks to reveal the agent's prompt or configuration ${describe(v)}` }
        : undefined;
    },
  },
  {
    id: "injection.hidden-text",
    category: "injection",
    severity: "block",
    description: "Text hidden in Unicode tag characters (invisible to people, read by models)",
    when: { hiddenText: true },
    detect(s) {
      const v = s.views.find((v) => v.origin === "tags" && v.text.trim().length > 0);
      return v !== undefined ? { reason: `invisible tag-character text in ${v.key}: "${clip(v.text)}"` } : undefined;
    },
  },
];
