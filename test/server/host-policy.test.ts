import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hostPolicy } from '../../src/server/service/host-policy.js';

describe('hostPolicy', () => {
  const hosts = fc.constantFrom(
    undefined,
    '',
    'localhost',
    'localhost:7411',
    'LOCALHOST:80',
    '127.0.0.1:7411',
    '[::1]:7411',
    '[::1',
    'api.localhost',
    'evil.example',
    'evil.example:7411',
    'prompts.internal',
    'a.prompts.internal:8080',
    'prompts.internal.',
    'bad host',
    ' localhost',
  );
  const allowed = fc.subarray(['prompts.internal', '.prompts.internal', 'evil.example']);

  it('answers every Host in a sequence as a policy asked nothing before does (the last allowed one kept)', () => {
    fc.assert(
      fc.property(allowed, fc.array(hosts, { maxLength: 12 }), (names, sequence) => {
        const policy = hostPolicy(names);
        for (const host of sequence)
          expect([host, policy.allowsHost(host)]).toEqual([host, hostPolicy(names).allowsHost(host)]);
      }),
      { numRuns: 300 },
    );
  });

  it('allows no empty or missing Host, even after an allowed one', () => {
    const policy = hostPolicy([]);
    expect(policy.allowsHost('localhost')).toBe(true);
    expect(policy.allowsHost(undefined)).toBe(false);
    expect(policy.allowsHost('')).toBe(false);
    expect(policy.allowsHost('evil.example')).toBe(false);
    expect(policy.allowsHost('localhost')).toBe(true);
  });
});
