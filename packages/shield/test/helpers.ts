import { createShield, loadPolicy, type Shield, type ShieldContext, type Verdict } from "@palisade/shield";

export const HOME = "/home/dev";
export const WORKSPACE = "/home/dev/project";

const shields = new Map<string, Promise<Shield>>();

/** A shield over a shipped policy with a fixed home/workspace, no cache and no rate limit. */
export function shieldFor(policy = "default"): Promise<Shield> {
  let s = shields.get(policy);
  if (s === undefined) {
    s = loadPolicy(policy).then((p) =>
      createShield({ policy: p, home: HOME, workspace: WORKSPACE, cache: false, rateLimitPerMinute: 0 }),
    );
    shields.set(policy, s);
  }
  return s;
}

export async function check(
  tool: string,
  args: unknown,
  context: ShieldContext = {},
  policy = "default",
): Promise<Verdict> {
  return (await shieldFor(policy)).evaluateSync({ tool, args }, context);
}

export const sh = (command: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  command,
  ...extra,
});
