// What a compose outcome holds, in bytes (an upper bound), for the byte-bounded memo.

/**
 * An upper bound of the memory of a compose outcome: its text twice per UTF-16 unit, a
 * generous allowance per layer and diagnostic, and a fixed overhead.
 */
export function outcomeBytes(outcome: {
  ok: boolean;
  result?: { text: string; layers: readonly unknown[]; diagnostics: readonly { message: string }[] };
  diagnostics?: readonly { message: string }[];
}): number {
  const result = outcome.result;
  const diagnostics = result ? result.diagnostics : (outcome.diagnostics ?? []);
  let bytes = 2048;
  for (const d of diagnostics) bytes += 256 + d.message.length * 2;
  if (result) bytes += result.text.length * 2 + result.layers.length * 640;
  return bytes;
}
