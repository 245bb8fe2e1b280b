export { SYNTHETIC_TOOL_RESULT, findToolPairViolations, repairToolPairs, resolveToolResultCallIds } from './tool-pairs';
export type { ToolPairOptions, ToolPairRepair, ToolPairViolation } from './tool-pairs';
