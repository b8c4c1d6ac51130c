/**
 * A peer's reply read up to `cap` bytes and no further: how much it sends is
 * the peer's choice, not ours. Leaving the loop early ends the body (an
 * undici Readable is destroyed, a web ReadableStream cancelled), so the rest
 * is never read. One reader for every reply the engine takes from a peer it
 * does not trust: the recogniser, the dashboard, the identity and liveness reads.
 */
export async function readCapped(
  body: AsyncIterable<Uint8Array>,
  cap: number,
): Promise<{ bytes: Buffer; over: boolean }> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.byteLength;
    if (size > cap) break;
  }
  return { bytes: Buffer.concat(chunks).subarray(0, cap), over: size > cap };
}
