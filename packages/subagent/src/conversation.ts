// The sub-agent's side of a conversation with its parent: before every model call it polls the
// Engine (progress out; follow-up messages and cancellation in). Follow-ups join the model's
// context as user messages at the point they arrived and stay there for the later calls.
import { AgentFailure } from "@palisade/agent";
import type { CallModel, ModelRequest } from "@palisade/agent";

export type ChatMessage = ModelRequest["messages"][number];

export interface PollResult {
  messages: string[];
  cancelled: boolean;
}

/** Asks the Engine for follow-ups; `llmCalls` is the progress reported with the poll. */
export type Poll = (llmCalls: number) => Promise<PollResult>;

export interface Injection {
  /** Index in the loop's own message list before which the message goes. */
  at: number;
  message: ChatMessage;
}

/** `base` with the injected messages placed at their positions (`at` ascending). Pure. */
export function withInjected(base: readonly ChatMessage[], injected: readonly Injection[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  let k = 0;
  for (let i = 0; i <= base.length; i++) {
    for (let next = injected[k]; next !== undefined && next.at <= i; next = injected[++k]) out.push(next.message);
    const m = base[i];
    if (m !== undefined) out.push(m);
  }
  return out;
}

export class Conversation {
  private readonly injected: Injection[] = [];
  private lastBase: readonly ChatMessage[] = [];
  /** Model calls made through this conversation (the loop's, not compaction). */
  calls = 0;

  constructor(
    private readonly inner: CallModel,
    private readonly poll: Poll,
    /** LLM calls spent before this conversation (earlier follow-up rounds). */
    private readonly spent: number,
    private readonly onCancelled: () => void,
  ) {}

  /** Takes follow-ups that arrived after the last model call. */
  accept(messages: readonly string[]): void {
    for (const text of messages)
      this.injected.push({ at: this.lastBase.length, message: { role: "user", content: text } });
  }

  /** Everything the model saw on its last call, follow-ups included. */
  transcript(): ChatMessage[] {
    return withInjected(this.lastBase, this.injected);
  }

  readonly callModel: CallModel = async (request) => {
    // Internal calls (compaction) carry no token callback and their own message list.
    if (!request.onToken) return this.inner(request);
    const polled = await this.poll(this.spent + this.calls);
    if (polled.cancelled) {
      this.onCancelled();
      throw new AgentFailure("CANCELLED", "the sub-agent was cancelled by the Engine");
    }
    this.lastBase = request.messages;
    this.accept(polled.messages);
    this.calls++;
    return this.inner({ ...request, messages: withInjected(request.messages, this.injected) });
  };
}
