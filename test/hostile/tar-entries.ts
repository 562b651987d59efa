import { gzipSync } from 'node:zlib';

// Raw tar entries for hostile bundles: any header a tar program (or an attacker) may write.

const enc = new TextEncoder();

/** One raw ustar header (+ data) whose name is given as bytes, checksummed. */
export function entry(name: Uint8Array, data: Uint8Array = new Uint8Array(), type = '0', link = ''): Buffer {
  const block = new Uint8Array(512);
  block.set(name.subarray(0, 100), 0);
  block.set(enc.encode('0000644\0'), 100);
  block.set(enc.encode('0000000\0'), 108);
  block.set(enc.encode('0000000\0'), 116);
  block.set(enc.encode(`${data.length.toString(8).padStart(11, '0')}\0`), 124);
  block.set(enc.encode('00000000000\0'), 136);
  block[156] = type.charCodeAt(0);
  block.set(enc.encode(link), 157);
  block.set(enc.encode('ustar\u000000'), 257);
  block.fill(0x20, 148, 156);
  const sum = block.reduce((a, b) => a + b, 0);
  block.set(enc.encode(`${sum.toString(8).padStart(6, '0')}\0 `), 148);
  const padded = new Uint8Array(Math.ceil(data.length / 512) * 512);
  padded.set(data);
  return Buffer.concat([block, padded]);
}

/** A pax extended header (as bsdtar writes for a file's extended attributes) for the next entry. */
export function pax(key: string, value: string): Buffer {
  const body = ` ${key}=${value}\n`;
  const record = `${body.length + String(body.length + 3).length}${body}`;
  return entry(enc.encode('./PaxHeaders/x'), enc.encode(record), 'x');
}

/**
 * The pax-record bomb: `mib` MiB of tiny pax records (`8 aa=bb\n`, in extended headers of
 * 64 KiB each, as many as fit) before one file, gzip'd: about 2 KB of .tgz per MiB.
 */
export function paxBomb(mib: number, file = 'base.md', text = 'Base.\n'): Uint8Array {
  const record = enc.encode('8 aa=bb\n');
  const data = new Uint8Array(64 * 1024);
  for (let i = 0; i < data.length; i += record.length) data.set(record, i);
  const header = entry(enc.encode('PaxHeader'), data, 'x');
  const headers = Math.floor((mib * 1024 * 1024) / data.length);
  const parts = [...Array.from({ length: headers }, () => header), entry(enc.encode(file), enc.encode(text))];
  return gzipSync(Buffer.concat([...parts, new Uint8Array(1024)]), { level: 9 });
}
