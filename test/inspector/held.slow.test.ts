import { mkdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers.js';
import { launchChromium, startPackService, type TestService } from './service.js';

// A held reload in the inspector (real Chromium, real service over a copy of
// examples/roboco): deleting grace's identity file would take a layer from her prompt, so
// the service holds the new version; the page shows a banner naming her, what she would
// lose and the command that accepts the version, and the banner goes when the file is
// back or the version is accepted. Also: the compare tab of two identical prompts says so
// and nothing else.

const SHOTS = join(ROOT, 'test-output', 'inspector');
const TOKEN = 'held-test-token';

let service: TestService;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  service = await startPackService('roboco', { adminToken: TOKEN });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1400, height: 1000 }, colorScheme: 'light' });
  page.on('pageerror', (e) => pageErrors.push(e.message));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await service?.close();
});

async function status(): Promise<{ version: string; held: { version: string } | null }> {
  return (await fetch(`${service.url}/api/status`)).json();
}

describe.sequential('a held version in the inspector', () => {
  it('compares two identical prompts without a stray word', async () => {
    await page.goto(`${service.url}/?agent=ada&tab=compare`);
    await page.waitForSelector('#diff-summary');
    expect(await page.textContent('#diff-summary')).toContain(
      'No difference: the two prompts are byte-identical.',
    );
    expect(await page.$eval('#diff-summary', (el) => el.nextSibling?.textContent ?? null)).toBeNull();
  });

  it('shows a banner naming the members it would degrade and how to accept it', async () => {
    await page.goto(`${service.url}/?agent=grace`);
    await page.waitForSelector('body[data-ready]');
    const served = (await status()).version;
    const identity = join(service.dir, 'identities', 'grace.md');
    renameSync(identity, `${identity}.away`);
    await page.waitForSelector('#held:not([hidden])', { timeout: 60_000 });
    const held = (await status()).held!;
    expect(held).not.toBeNull();
    const banner = (await page.textContent('#held'))!;
    expect(banner).toContain(
      `New pack version ${held.version.slice(0, 12)} is held — it would degrade 1 member (grace); still serving ${served.slice(0, 12)}.`,
    );
    expect(await page.textContent('#held-diagnostics')).toMatch(
      /^warning LAYER_LOST: grace would lose layer identity from identities\/grace\.md \(identities\/grace\.md is missing\)$/,
    );
    expect(await page.textContent('#held-accept')).toBe(
      `curl -X POST -H "Authorization: Bearer $STRATA_ADMIN_TOKEN" '${service.url}/api/prompts/reload?accept=${held.version}'`,
    );
    // The page keeps showing the served prompt, identity included.
    expect(await page.locator('.band[data-layer="identity"]').count()).toBe(1);
    await page.screenshot({ path: join(SHOTS, 'held-banner.png') });

    // Putting the file back clears the hold, and the banner.
    renameSync(`${identity}.away`, identity);
    await page.waitForSelector('#held', { state: 'hidden', timeout: 60_000 });
    expect((await status()).held).toBeNull();
  });

  it('goes when the held version is accepted as the banner says', async () => {
    const identity = join(service.dir, 'identities', 'grace.md');
    renameSync(identity, `${identity}.away`);
    await page.waitForSelector('#held:not([hidden])', { timeout: 60_000 });
    const accept = (await page.textContent('#held-accept'))!;
    const url = /'(http[^']+)'/.exec(accept)![1]!;
    const res = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    await page.waitForSelector('#held', { state: 'hidden', timeout: 60_000 });
    await expect.poll(() => page.locator('.band[data-layer="identity"]').count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });
});
