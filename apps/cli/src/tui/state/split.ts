/**
 * Where a streaming Markdown answer can be cut so the part before it never changes again:
 * the last blank line that is outside a fenced code block. The part before is printed once
 * (ink Static) and the live area only re-renders the tail, which keeps long answers cheap.
 */
export function stableSplitPoint(text: string): number {
  let inFence = false;
  let fence = "";
  let split = 0;
  let pos = 0;
  const lines = text.split("\n");
  // The last line may still be growing; never cut inside or right before it.
  for (let i = 0; i < lines.length - 1; i++) {
    const line = lines[i] ?? "";
    const trimmed = line.trimStart();
    const m = /^(`{3,}|~{3,})/.exec(trimmed);
    if (m) {
      const marker = m[1] ?? "";
      if (!inFence) {
        inFence = true;
        fence = marker;
      } else if (
        marker[0] === fence[0] &&
        marker.length >= fence.length &&
        trimmed.slice(marker.length).trim() === ""
      ) {
        inFence = false;
      }
    }
    pos += line.length + 1;
    // A blank line outside a fence, followed by a line that does not continue a list item.
    if (!inFence && line.trim() === "" && i > 0) {
      const next = lines[i + 1] ?? "";
      if (!/^\s+\S/.test(next)) split = pos;
    }
  }
  return split;
}
