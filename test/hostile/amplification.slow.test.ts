import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXAMPLES } from '../helpers.js';
import { spawnServe } from '../server/helpers.js';

// The service under the image's heap cap, attacked by eight clients at once with request
// inputs that would amplify to 115 MB each: every answer is a 422, and it keeps serving.

describe('amplifying inputs against a service with a 384 MiB heap', () => {
  it('eight at once: each 422 PROMPT_TOO_LARGE, the process alive and answering', async () => {
    const service = await spawnServe(['--dir', join(EXAMPLES, 'crewai'), '--port', '0'], {
      NODE_OPTIONS: '--max-old-space-size=384',
    });
    try {
      const body = JSON.stringify({
        role: 'market_analyst',
        vars: { sector: '{quarter}'.repeat(3600), quarter: 'x'.repeat(32000) },
      });
      const attack = () =>
        fetch(`${service.url}/api/compose`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        }).then(async (r) => [r.status, ((await r.json()) as { error: { code: string } }).error.code]);
      for (let round = 0; round < 3; round++) {
        const answers = await Promise.all(Array.from({ length: 8 }, attack));
        expect(answers).toEqual(Array.from({ length: 8 }, () => [422, 'PROMPT_TOO_LARGE']));
      }
      expect(service.child.exitCode).toBeNull();
      expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
      const ok = await fetch(`${service.url}/api/prompts/market_analyst?var.sector=energy&var.quarter=Q3`);
      expect(ok.status).toBe(200);
    } finally {
      expect(await service.stop()).toBe(0);
    }
  });
});
