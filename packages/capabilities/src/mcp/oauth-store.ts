import type {
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from "@modelcontextprotocol/client";
import { UserCredentialStore } from "../credentials.js";

/** The Engine's one user, whose credentials these are. */
const LOCAL_USER = "local";

interface Stored {
  tokens?: StoredOAuthTokens;
  client?: StoredOAuthClientInformation;
  discovery?: OAuthDiscoveryState;
  /** Between the redirect and the callback of a login only. */
  verifier?: string;
  /** The scope the server asked for when the Engine could not sign in again (step-up): the next login asks for it. */
  pendingScope?: string;
}

/**
 * One MCP server's OAuth state (tokens, client registration, discovery) in Palisade's credential
 * store (`<data dir>/credentials.json`, 0600), under the capability's id as `oauth`. It is read
 * and written by the Engine and `palisade capability login` only; nothing of it is passed to
 * the Agent, a sandbox or the model.
 */
export class OAuthStore {
  constructor(
    private readonly store: UserCredentialStore,
    readonly capabilityId: string,
  ) {}

  static at(file: string, capabilityId: string): OAuthStore {
    return new OAuthStore(new UserCredentialStore(file), capabilityId);
  }

  async read(): Promise<Stored> {
    const raw = await this.store.get(LOCAL_USER, this.capabilityId, "oauth");
    if (raw === undefined) return {};
    try {
      return JSON.parse(raw) as Stored;
    } catch {
      return {};
    }
  }

  async update(change: (s: Stored) => void): Promise<void> {
    const s = await this.read();
    change(s);
    await this.store.set(LOCAL_USER, this.capabilityId, "oauth", JSON.stringify(s));
  }

  async clear(): Promise<boolean> {
    return this.store.delete(LOCAL_USER, this.capabilityId, "oauth");
  }
}
