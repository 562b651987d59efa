import { describe, expect, it } from 'vitest';
import { cli, tempDir, writeFiles } from '../helpers.js';

// `{{name}}` in a file's text reaches the agent as written (files are no templates):
// validate says so at the placeholder, with the closest setting or input names.

const ROLE = [
  '---',
  'note: "{{in_frontmatter}}"',
  '---',
  'Ship {{product_name}} today.',
  'Work at {{ ponytail_intensty }} intensity, or {{ponytail_intensity}}.',
  'Inline `{{shown_as_code}}` is fine.',
  '```jinja',
  'Hello {{ user }}',
  '```',
  '',
].join('\n');

describe('{{name}} in a pack file', () => {
  it('is UNKNOWN_PLACEHOLDER at its line and column, with the closest names; code and frontmatter are passed over', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'base.md': 'Base.\n', 'roles/qa.md': ROLE });
    const r = await cli(['validate', '--dir', dir]);
    expect(r.code).toBe(0);
    const said = r.stdout.split('\n').filter((l) => l.includes('UNKNOWN_PLACEHOLDER'));
    expect(said).toEqual([
      "warning UNKNOWN_PLACEHOLDER: roles/qa.md:4:6: {{product_name}} is no setting or input, and a file's text is no template: the braces reach the agent as written; settings and inputs: fable_mode_enabled, ponytail_intensity",
      'warning UNKNOWN_PLACEHOLDER: roles/qa.md:5:9: {{ponytail_intensty}} is no setting or input, and a file\'s text is no template: the braces reach the agent as written; did you mean "ponytail_intensity"?; settings and inputs: fable_mode_enabled, ponytail_intensity',
      "warning UNKNOWN_PLACEHOLDER: roles/qa.md:5:47: {{ponytail_intensity}} is not filled here: a file's text is no template, so the braces reach the agent as written; fill it in a layer's text: or append:",
    ]);
    const strict = await cli(['validate', '--dir', dir, '--strict']);
    expect(strict.code).toBe(1);
  });

  it('is not said of a file no prompt holds text from', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'base.md': 'Base.\n', 'roles/qa.md': 'QA.\n', 'README.md': 'Use {{whatever}}.\n' });
    const r = await cli(['validate', '--dir', dir]);
    expect(r.stdout).not.toContain('UNKNOWN_PLACEHOLDER');
  });
});
