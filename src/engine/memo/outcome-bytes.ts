// What a compose outcome holds, in bytes (an upper bound), for the byte-bounded memo.

/**
 * An upper bound of the memory of a compose outcome: its text twice per UTF-16 unit, a
 * generous allowance per layer (one per layer of the manifest: `layers`) and diagnostic,
 * and a fixed overhead. A result's layers are not read: they are built on first read.
 */
export function outcomeBytes(
  outcome: {
    ok: boolean;
    result?: { text: string; diagnostics: readonly { message: string }[] };
    diagnostics?: readonly { message: string }[];
  },
  layers: number,
): number {
  const result = outcome.result;
  const diagnostics = result ? result.diagnostics : (outcome.diagnostics ?? []);
  let bytes = 2048;
  for (let i = 0; i < diagnostics.length; i++) bytes += 256 + diagnostics[i]!.message.length * 2;
  if (result) bytes += result.text.length * 2 + layers * 640;
  return bytes;
}
