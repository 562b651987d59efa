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

  // A name no Host could match was kept as given, and silently let nothing through:
  // `--allowed-host http://prompts.internal` or `prompts.internal:7411` answered every request 403.
  it.each(['', ' ', 'http://prompts.internal', 'prompts.internal:7411', 'prompts.internal/api', 'a b', '-x'])(
    'refuses %j, which no Host could match, saying what it takes',
    (name) => {
      expect(() => hostPolicy([name])).toThrow(
        new TypeError(
          `allowed host ${JSON.stringify(name)} is not a host name: give a name (prompts.internal), .example.com for its subdomains, or *; no scheme, port or path`,
        ),
      );
    },
  );

  it.each([
    'prompts.internal',
    '.example.com',
    'strata.',
    '*',
    'Strata',
    'a_b.svc',
    '10.0.0.1',
    '::1',
    '[::1]',
  ])('takes %j', (name) => {
    expect(hostPolicy([name]).enabled).toBe(name !== '*');
  });

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
