// Validation of Palisade's YAML files (config.yaml, capability manifests, policies) by JSON
// Schema: the YAML read with positions, ajv's errors turned into messages with path and
// line:column in one place. The compiler (`/standalone`) runs ahead of time, never at start.
export {
  argumentProblems,
  describeValue,
  didYouMean,
  formatProblem,
  pathOf,
  pathParts,
  pointerParts,
  schemaProblems,
  syntaxProblems,
} from "./problems.js";
export type { FileProblem, ProblemOptions, SchemaProblem } from "./problems.js";
export { readYaml } from "./yaml.js";
export type { DataPath, Position, YamlFile, YamlSyntaxProblem } from "./yaml.js";
export { dropNulls, schemaKeys } from "./walk.js";
export type { ValidateFunction } from "ajv";
