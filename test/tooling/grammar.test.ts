import { describe, expect, it } from 'vitest';
import { jsonBlockDiagnostics } from '../../src/tooling/lint/json-block.js';
import { findJsonError } from '../../src/tooling/lint/json-check.js';
import { parseUcxl, ucxlDiagnostics } from '../../src/tooling/lint/ucxl.js';

describe('UCXL grammar', () => {
  it.each([
    ['ucxl://any:arbiter@CHORUS:prompt-sourcing/*^/docs/decisions/2025-09-06-x.md', '*^'],
    ['ucxl://chorus-agent-02:implementer@CHORUS:prompt-sourcing/~~2/pkg/prompt/loader.go', '~~2'],
    ['ucxl://any:any@CHORUS:any/*~/docs/architecture/overview.md', '*~'],
    ['ucxl://a:b@c:d/*~3/x', '*~3'],
    ['ucxl://a:b@c:d/^^1/x', '^^1'],
    ['ucxl://arbiter:design@CHORUS:prompt-sourcing/#/docs/decisions/a.md', '#'],
    ['ucxl://a_1:b-2@C:d/*^/', '*^'],
  ])('accepts %s', (text, temporal) => {
    const parsed = parseUcxl(text);
    expect(parsed.ok && parsed.address.temporal).toBe(temporal);
  });

  it.each([
    ['ucxl://any:arbiter@CHORUS/*^/a.md', 'expected agent:role@project:task'],
    ['ucxl://any@CHORUS:task/*^/a.md', 'expected agent:role@project:task'],
    ['ucxl://a.b:c@d:e/*^/a.md', 'expected agent:role@project:task'],
    ['ucxl://a:b@c:d/latest/a.md', 'temporal selector "latest"'],
    ['ucxl://a:b@c:d/~~/a.md', 'temporal selector "~~"'],
    ['ucxl://a:b@c:d/^^x/a.md', 'temporal selector "^^x"'],
    ['ucxl://a:b@c:d/*^', 'expected /path'],
    ['ucxl://a:b@c:d/*^/docs//a.md', 'path'],
    ['ucxl://a:b@c:d/*^/../etc/passwd', 'path'],
  ])('refuses %s', (text, problem) => {
    const parsed = parseUcxl(text);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.problem).toContain(problem);
  });

  it('finds addresses in text with line:col, ignoring quotes, backticks and trailing punctuation', () => {
    const text = [
      'See `ucxl://any:a@P:t/*^/ok.md`.',
      '"evidence": ["ucxl://any:a@P:t/*^/ok.md", "ucxl://any:a@P/*^/bad.md"],',
      'Also ucxl://any:a@P:t/now/x.md.',
    ].join('\n');
    expect(ucxlDiagnostics('d.md', text).map((d) => [d.code, d.severity, d.line, d.col])).toEqual([
      ['BAD_UCXL', 'warning', 2, 44],
      ['BAD_UCXL', 'warning', 3, 6],
    ]);
  });
});

describe('json blocks', () => {
  it.each([
    ['{"a": 1,}', 1, 9, 'trailing comma'],
    ['{"a" 1}', 1, 6, "expected ':'"],
    ['[1, 2', 1, 6, 'unexpected end'],
    ['{"a": "b\nc"}', 1, 9, 'control character'],
    ['{"a": 1} x', 1, 10, 'after the JSON value'],
    ['{"a": .5}', 1, 7, 'expected a value'],
    ['{\n  "a": [1, 2,\n  ]\n}', 3, 3, 'trailing comma'],
  ])('locates the error in %j', (text, line, col, message) => {
    const found = findJsonError(text)!;
    expect(found.message).toContain(message);
    const before = text.slice(0, found.offset).split('\n');
    expect([before.length, before.at(-1)!.length + 1]).toEqual([line, col]);
  });

  it('accepts valid JSON', () => {
    expect(findJsonError('{"a": [1, -2.5e3, true, null, "\\u00e9\\n"]}')).toBeUndefined();
  });

  it('checks only json fences, with file lines, including indented and unclosed ones', () => {
    const text = [
      '# T', // 1
      '```js', // 2
      '{ not json }', // 3
      '```', // 4
      '  ```json', // 5
      '  {"ok": true}', // 6
      '  ```', // 7
      '````JSON title', // 8
      '{"a": }', // 9
      '````', // 10
      '```json', // 11
      '{}', // 12
    ].join('\n');
    expect(jsonBlockDiagnostics('f.md', text).map((d) => [d.code, d.line, d.col, d.message])).toEqual([
      ['JSON_BLOCK', 9, 7, 'json block does not parse: unexpected "}"; expected a value'],
      ['JSON_BLOCK', 11, 1, 'the json block opened here is never closed'],
    ]);
  });
});
