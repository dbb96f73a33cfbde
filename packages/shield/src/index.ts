export { createShield } from "./shield.js";
export type { Shield, ShieldOptions, ShieldStats } from "./shield.js";
export { parsePolicy } from "./policy/parse.js";
export { loadPolicy, builtinPolicyPath, BUILTIN_POLICIES } from "./policy/load.js";
export type { BuiltinPolicy } from "./policy/load.js";
export type { Policy, PolicyRule, RuleWhen } from "./policy/types.js";
export { toolPolicy } from "./policy/tool-policy.js";
export type { ToolPolicy, ToolPolicyContext } from "./policy/tool-policy.js";
export { DETECTORS } from "./detectors/index.js";
export type { Detector, Hit } from "./detectors/types.js";
export { KNOWN_TOOLS, toolSpec } from "./tools.js";
export { checkSemantics, parseSemantics, SemanticsError, SEMANTIC_KINDS } from "./semantics/parse.js";
export type { SemanticsProblem } from "./semantics/parse.js";
export { inferSemantics } from "./semantics/infer.js";
export type { ToolKind, ToolSpec, PathOp } from "./tools.js";
export { createOpenAIJudge, generateCanary, parseJudgeAnswer } from "./judge/openai.js";
export type { OpenAIJudgeOptions } from "./judge/openai.js";
export type { Judge, JudgeInput, JudgeProvenance, JudgeResult } from "./judge/types.js";
export { resolveApproval, evaluateWithApproval } from "./approval.js";
export type { ApprovalRequest, ApprovalOutcome, Approver } from "./approval.js";
export { CORPUS_SETS, CorpusError, corpusFiles, isCorpusSet, loadCorpusSet, parseCases } from "./corpus/sets.js";
export type { CorpusSet, LabelledCase } from "./corpus/sets.js";
export { evaluateCases, evaluateCorpusSet, formatReport } from "./corpus/evaluate.js";
export type { CaseResult, CategoryStats, EvalOptions, EvalReport } from "./corpus/evaluate.js";
export { verdictJson, verdictText } from "./cli/format.js";
export type { CliIO } from "./cli/format.js";
export { runEval, runEvalSet, confusionTable } from "./cli/eval.js";
export { contextFromJson } from "./cli/context.js";
export { ShieldError } from "./errors.js";
export { PolicyError } from "./policy/errors.js";
export type { PolicyProblem } from "./policy/errors.js";
export { stricter } from "./types.js";
export { visible, visibleJson } from "./visible.js";
export { gitConfigRunsProgram, repoConfigEntryRunsProgram } from "./normalize/git-config.js";
export type { ActionClass } from "./action-class.js";
export { ProvenanceIndex, words } from "./provenance/store.js";
export type { ProvenanceIndexOptions } from "./provenance/store.js";
export { trustOfResult } from "./provenance/trust.js";
export type { ResultOrigin } from "./provenance/trust.js";
export { fragmentsOf } from "./provenance/fragments.js";
export { secretValues } from "./provenance/secret-values.js";
export { describeLabel, describeValues } from "./provenance/describe.js";
export { ROLES, TRUSTS } from "./provenance/types.js";
export type { ArgValue, Label, Origin, ProvenanceSource, ProvenanceView, Role, Trust } from "./provenance/types.js";
export type {
  Action,
  Decision,
  DetectorCategory,
  Finding,
  ManifestPolicy,
  NetworkPolicy,
  SessionMode,
  Severity,
  ShieldContext,
  Tier,
  Verdict,
} from "./types.js";
