import { tryCompose } from './src/core/compose.js';
import { memPack } from './test/helpers.js';

const A = '.claude/agents/';
const cases: Array<[string, Record<string, string | Uint8Array>, string]> = [
  [
    'tools list',
    {
      [A + 'a.md']:
        '---\nname: a\ndescription: D\ntools:\n  - Read\n  - Bash(git:*)\nmodel: inherit\n---\nBody\n',
    },
    'a',
  ],
  [
    'tools string',
    {
      [A + 'a.md']:
        '---\nname: a\ndescription: D\ntools: Read, Grep,Bash(npm run test:*)\nmodel: sonnet\n---\nBody\n',
    },
    'a',
  ],
  ['missing name', { [A + 'a.md']: '---\ndescription: D\n---\nBody\n' }, 'a'],
  ['CRLF', { [A + 'a.md']: '---\r\nname: a\r\ndescription: D: with colon\r\n---\r\nBody\r\nline2\r\n' }, 'a'],
  ['BOM', { [A + 'a.md']: '\uFEFF---\nname: a\ndescription: D\n---\nBody\n' }, 'a'],
  [
    'dup names',
    {
      [A + 'a.md']: '---\nname: a\ndescription: D\n---\nOne\n',
      [A + 'sub/b.md']: '---\nname: a\ndescription: D\n---\nTwo\n',
    },
    'a',
  ],
  [
    'case names',
    {
      [A + 'a.md']: '---\nname: Reviewer\ndescription: D\n---\nOne\n',
      [A + 'b.md']: '---\nname: reviewer\ndescription: D\n---\nTwo\n',
    },
    'reviewer',
  ],
  ['name NFD', { [A + 'a.md']: '---\nname: cafe\u0301\ndescription: D\n---\nOne\n' }, 'caf\u00e9'],
  ['name NFD exact', { [A + 'a.md']: '---\nname: cafe\u0301\ndescription: D\n---\nOne\n' }, 'cafe\u0301'],
  ['name number', { [A + 'a.md']: '---\nname: 123\ndescription: D\n---\nOne\n' }, '123'],
  ['desc multi', { [A + 'a.md']: '---\nname: a\ndescription: |\n  multi\n  line\n---\nOne\n' }, 'a'],
  ['no closing', { [A + 'a.md']: '---\nname: a\ndescription: D\nBody\n' }, 'a'],
  ['closing with spaces', { [A + 'a.md']: '---\nname: a\ndescription: D\n---   \nBody\n' }, 'a'],
  ['dashes in body', { [A + 'a.md']: '---\nname: a\ndescription: D\n---\nBody\n---\nmore\n' }, 'a'],
  ['empty fm', { [A + 'a.md']: '---\n---\nBody\n' }, 'a'],
  ['name with spaces around', { [A + 'a.md']: '---\nname: "  a  "\ndescription: D\n---\nBody\n' }, 'a'],
  ['tools empty', { [A + 'a.md']: '---\nname: a\ndescription: D\ntools:\n---\nBody\n' }, 'a'],
  ['tools star', { [A + 'a.md']: '---\nname: a\ndescription: D\ntools: "*"\n---\nBody\n' }, 'a'],
  ['uppercase .MD', { [A + 'a.MD']: '---\nname: a\ndescription: D\n---\nBody\n' }, 'a'],
];
for (const [name, files, role] of cases) {
  const r = memPack(files, {});
  const ds = r.diagnostics.map(
    (d) => `${d.severity}:${d.code}@${d.file}:${d.line}:${d.col} ${d.message.slice(0, 160)}`,
  );
  let out = '';
  if (r.snapshot) {
    const o = tryCompose(r.snapshot, { role });
    out = o.ok
      ? JSON.stringify(o.result.text.slice(0, 120)) +
        ' cfg=' +
        JSON.stringify((o.result as any).config ?? null)
      : o.diagnostics.map((d) => `${d.code} ${d.message.slice(0, 200)}`).join(' | ');
  }
  console.log(`== ${name}: preset=${r.snapshot?.manifest.name}\n  ${ds.join('\n  ')}\n  -> ${out}`);
}
{
  const r = memPack({
    [A + 'a.md']: '---\nname: Frontend Developer\ndescription: D\n---\nOne\n',
    [A + 'b.md']: '---\nname: cafe\u0301\ndescription: D\n---\nOne\n',
  });
  for (const role of ['Frontend Developr', 'frontend developer', 'caf\u00e9', 'Café Bar']) {
    const o = tryCompose(r.snapshot!, { role });
    console.log(
      role,
      o.ok ? 'ok' : o.diagnostics.map((d) => `${d.code} ${d.message} ${JSON.stringify(d.suggestions)}`),
    );
  }
}
