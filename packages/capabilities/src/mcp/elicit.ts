import { AsyncLocalStorage } from "node:async_hooks";

/**
 * What an MCP server asks the user during a tool call (elicitation, form mode). `message` and
 * the field titles are the server's words: whoever shows them must mark them as untrusted.
 */
export interface ElicitationRequest {
  capabilityId: string;
  /** The tool whose call asked. */
  tool: string;
  message: string;
  /** A flat JSON Schema object of primitive fields (string, number, integer, boolean, enum). */
  requestedSchema: Record<string, unknown>;
}

/** The user's answer: accept with field values, decline, or cancel. */
export type ElicitationAnswer =
  | { action: "accept"; content: Record<string, string | number | boolean | string[]> }
  | { action: "decline" }
  | { action: "cancel" };

export type Elicit = (request: ElicitationRequest, signal: AbortSignal) => Promise<ElicitationAnswer>;

interface CallScope {
  tool: string;
  elicit?: Elicit;
  signal: AbortSignal;
}

/**
 * Which call a server's question belongs to. Input-required results (2026-07-28) are answered
 * inside the call's own promise chain, so the scope is the call's; a server-to-client request
 * (2025-11-25) arrives from the transport, so it goes to the only call in flight, if just one.
 */
export class ElicitationRouter {
  private readonly scope = new AsyncLocalStorage<CallScope>();
  private readonly inFlight = new Set<CallScope>();

  run<T>(call: CallScope, fn: () => Promise<T>): Promise<T> {
    this.inFlight.add(call);
    return this.scope.run(call, fn).finally(() => this.inFlight.delete(call));
  }

  /** Answers a server's elicitation; declined when no call can ask its user (e.g. `run` without a terminal). */
  async answer(
    capabilityId: string,
    params: { message?: unknown; requestedSchema?: unknown; mode?: unknown },
  ): Promise<ElicitationAnswer> {
    const call = this.scope.getStore() ?? (this.inFlight.size === 1 ? [...this.inFlight][0] : undefined);
    if (!call?.elicit) return { action: "decline" };
    if (params.mode !== undefined && params.mode !== "form") return { action: "decline" };
    const requestedSchema = (
      typeof params.requestedSchema === "object" && params.requestedSchema !== null
        ? params.requestedSchema
        : { type: "object", properties: {} }
    ) as Record<string, unknown>;
    return call.elicit(
      {
        capabilityId,
        tool: call.tool,
        message: typeof params.message === "string" ? params.message : "",
        requestedSchema,
      },
      call.signal,
    );
  }
}
