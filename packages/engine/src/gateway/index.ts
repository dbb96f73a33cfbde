export { ModelGateway, SESSION_HEADER } from "./server.js";
export type { GatewayModel, GatewayPrincipal, ModelGatewayOptions, SessionTokens } from "./server.js";
export { ExchangeReplay } from "./recorder.js";
export type { Exchange } from "./recorder.js";
export { DEFAULT_BASE_URL, proxySettings, upstreamUrl } from "./upstream.js";
export { UsageScanner, usageOf } from "./usage.js";
export type { TokenCount } from "./usage.js";
