import { promises as fs } from 'node:fs';

/** The baseline: list the folder tree and read every file, nothing else. */
export async function readAll(root: string): Promise<number> {
  const entries = await fs.readdir(root, { recursive: true, withFileTypes: true });
  const files = entries.filter((e) => e.isFile()).map((e) => `${e.parentPath}/${e.name}`);
  let bytes = 0;
  for (let i = 0; i < files.length; i += 64) {
    const chunk = await Promise.all(files.slice(i, i + 64).map((f) => fs.readFile(f)));
    for (const b of chunk) bytes += b.length;
  }
  return bytes;
}
