import { ByteCache } from './byte-cache.js';
import type { SettingValue } from './settings.js';

/**
 * Two small, strict template forms:
 * - path templates, `roles/{role}.md`, with the request's role, team, agent (and role_file);
 * - text templates, `Intensity: {{ponytail_intensity}}`, with setting values.
 * Unknown names are found at load; nothing is evaluated.
 */

export const PATH_PLACEHOLDERS = ['role', 'team', 'agent', 'role_file'] as const;
export type PathPlaceholder = (typeof PATH_PLACEHOLDERS)[number];

const PATH_RE = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
const TEXT_RE = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

export function pathPlaceholders(template: string): string[] {
  return [...template.matchAll(PATH_RE)].map((m) => m[1]!);
}

export function textPlaceholders(template: string): string[] {
  return [...template.matchAll(TEXT_RE)].map((m) => m[1]!);
}

/**
 * Fills a path template. Returns the path, or the first placeholder without a value
 * (the layer is then skipped with reason `no-value`).
 */
export function fillPath(
  template: string,
  values: Readonly<Partial<Record<PathPlaceholder, string>>>,
): { path: string } | { missing: string } {
  const parts = compiled(template);
  let path = parts[0] as string;
  for (let i = 1; i < parts.length; i += 2) {
    const v = values[parts[i] as PathPlaceholder];
    if (v === undefined || v === '') return { missing: parts[i]! };
    path += v + parts[i + 1]!;
  }
  return { path };
}

export function fillText(template: string, settings: Readonly<Record<string, SettingValue>>): string {
  return template.replace(TEXT_RE, (_, name: string) => String(settings[name] ?? ''));
}

// --- internal ---

/** Split templates, across every manifest the process has seen: bounded by bytes. */
const compiledPaths = new ByteCache<string[]>(1024 * 1024);

/** `a/{role}.md` → ['a/', 'role', '.md']: literals at even indexes, names at odd ones. */
function compiled(template: string): string[] {
  let parts = compiledPaths.get(template);
  if (!parts) {
    parts = template.split(PATH_RE);
    compiledPaths.set(template, parts, template.length * 4 + parts.length * 64 + 96);
  }
  return parts;
}
