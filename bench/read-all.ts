import { promises as fs, readdirSync, readFileSync } from 'node:fs';

/**
 * The raw-read baselines for the load benchmark: list the folder tree and read every
 * file, nothing else, in each way this machine offers. The benchmark measures them all
 * in the same run and compares the loader with the fastest (the floor).
 */
export const RAW_READS: Record<string, (root: string) => number | Promise<number>> = {
  'readFileSync, one file after another': readAllSync,
  'async readFile, 64 at a time': (root) => readAllAsync(root, 64),
  'async readFile, 8 at a time': (root) => readAllAsync(root, 8),
};

/** Every file read with readFileSync; returns the bytes read. */
export function readAllSync(root: string): number {
  let bytes = 0;
  for (const file of listFiles(root)) bytes += readFileSync(file).length;
  return bytes;
}

/** Every file read with promises' readFile, `batch` at a time; returns the bytes read. */
export async function readAllAsync(root: string, batch = 64): Promise<number> {
  const files = listFiles(root);
  let bytes = 0;
  for (let i = 0; i < files.length; i += batch) {
    const chunk = await Promise.all(files.slice(i, i + batch).map((f) => fs.readFile(f)));
    for (const b of chunk) bytes += b.length;
  }
  return bytes;
}

/** The async baseline the benchmark used before (kept for the memory child). */
export const readAll = readAllAsync;

// --- internal ---

function listFiles(root: string): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => `${e.parentPath}/${e.name}`);
}
