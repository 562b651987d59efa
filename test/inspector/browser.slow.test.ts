import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ComposeResult, compose } from '../../src/core/compose/compose.js';
import { loadPackStrict } from '../../src/source/load.js';
import { ROOT } from '../helpers.js';
import { launchChromium, startPackService, type TestService } from './service.js';

// The inspector in a real headless Chromium (Debian's `chromium`, driven by
// playwright-core) against the real service over a temp copy of examples/roboco.
// Screenshots go to test-output/inspector/; UPDATE_DOCS_IMAGES=1 also refreshes the
// README's docs/images/.

const SHOTS = join(ROOT, 'test-output', 'inspector');

let service: TestService;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  service = await startPackService('roboco');
  browser = await launchChromium();
  context = await browser.newContext({
    viewport: { width: 1400, height: 1000 },
    colorScheme: 'light',
    acceptDownloads: true,
  });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: service.url });
  page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') pageErrors.push(m.text());
  });
});

afterAll(async () => {
  await browser?.close();
  await service?.close();
});

/** The prompt the core composes for a request over the pack as it is on disk now. */
async function expected(request: Parameters<typeof compose>[1]): Promise<ComposeResult> {
  return compose(await loadPackStrict(service.dir, { env: {} }), request);
}

async function bands(): Promise<Array<[string, string]>> {
  return page.$$eval('.band', (els) =>
    els.map((el) => [(el as HTMLElement).dataset.layer ?? '', el.querySelector('pre')?.textContent ?? '']),
  );
}

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `${name}.png`) });
}

describe.sequential('the inspector page', () => {
  it('opens on the first fleet member and lets you choose an agent', async () => {
    await page.goto(service.url);
    await page.waitForSelector('body[data-ready]');
    await expect.poll(() => page.textContent('#who-title')).toContain('ada');
    await page.selectOption('#agent', 'grace');
    await expect.poll(() => page.textContent('#who-title')).toContain('grace');
    expect(new URL(page.url()).search).toBe('?agent=grace');

    // Every included layer is a band holding exactly its bytes of the prompt.
    const want = await expected({ agent: 'grace' });
    const included = want.layers.filter((l) => l.included);
    const sep = '\n\n---\n\n';
    const got = await bands();
    expect(got.map(([id]) => id)).toEqual(included.map((l) => l.id));
    expect(got.map(([, text]) => text).join(sep)).toBe(want.text);
    expect(await page.getAttribute('main', 'data-sha')).toBe(want.sha256);
    expect(await page.textContent('#stat-size dd')).toBe(`${want.bytes.toLocaleString('en')} B`);
    expect(await page.textContent('.band[data-layer="role"] .source')).toBe('roles/qa.md');

    // Token counts come from the service and show on each band.
    const served = (await (
      await fetch(`${service.url}/api/compose`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ agent: 'grace' }),
      })
    ).json()) as { layers: Array<{ id: string; tokens?: number }> };
    const roleTokens = served.layers.find((l) => l.id === 'role')!.tokens!;
    expect(roleTokens).toBeGreaterThan(0);
    expect(await page.textContent('.band[data-layer="role"] .tokens')).toBe(
      `${roleTokens.toLocaleString('en')} tok`,
    );

    // Layers left out are listed with their reason.
    const skipped = await page.$$eval('.skipped li', (els) =>
      els.map((el) => [(el as HTMLElement).dataset.layer, (el as HTMLElement).dataset.reason]),
    );
    expect(skipped).toEqual(want.layers.filter((l) => !l.included).map((l) => [l.id, l.reason]));
    expect(await page.textContent('.skipped li[data-layer="fable"] .reason')).toBe(
      'gated: fable_mode_enabled',
    );
    await shot('agent-view');
  });

  it('copies and downloads the exact prompt', async () => {
    const want = await expected({ agent: 'grace' });
    await page.click('#copy');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(want.text);
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download')]);
    expect(download.suggestedFilename()).toBe(`strata-grace-${want.sha256.slice(0, 8)}.md`);
    expect(readFileSync(await download.path(), 'utf8')).toBe(want.text);
  });

  it('flipping fable_mode_enabled brings in the doctrine layers', async () => {
    const before = (await bands()).map(([id]) => id);
    expect(before).not.toContain('fable');
    await page.click('#set-fable_mode_enabled');
    await page.waitForSelector('.band[data-layer="fable"]');
    const want = await expected({ agent: 'grace', settings: { fable_mode_enabled: true } });
    expect((await bands()).map(([id]) => id)).toEqual(want.layers.filter((l) => l.included).map((l) => l.id));
    expect(await page.textContent('.band[data-layer="fable"] .source')).toBe('doctrine/fable.md');
    // grace is QA: the ethos cut of the ponytail doctrine.
    expect(await page.textContent('.band[data-layer="ponytail"] .source')).toBe('doctrine/ponytail-ethos.md');
    expect(await page.getAttribute('main', 'data-sha')).toBe(want.sha256);
    expect(new URL(page.url()).searchParams.get('set.fable_mode_enabled')).toBe('true');
    await shot('agent-view-fable');
  });

  it('opens a diff against the same agent under the service’s settings', async () => {
    await page.click('#tab-compare');
    await page.waitForSelector('#diff');
    expect(await page.textContent('#diff-summary')).toContain('layers that differ: fable, ponytail');
    // It reads as a change from the prompt on screen (the flag on) to the other one (the
    // service's settings, the flag off): the doctrine goes, the rest stays.
    expect(await page.textContent('#diff-summary .del-text')).toBe('− grace with fable_mode_enabled=true');
    expect(await page.locator('#diff tr.del').count()).toBeGreaterThan(10);
    expect(await page.locator('#diff tr.add').count()).toBe(0);
    await shot('compare-unified');

    await page.click('#diff-split');
    await page.waitForSelector('#diff.split');
    await page.click('#cmp-agent');
    await page.waitForSelector('#with-agent');
    await page.selectOption('#with-agent', 'linus');
    await expect.poll(() => page.textContent('#diff-summary')).toContain('linus');
    expect(await page.locator('#diff td.code.del mark').count()).toBeGreaterThan(0);
    const url = new URL(page.url());
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      tab: 'compare',
      cmp: 'agent',
      with: 'linus',
      diff: 'split',
    });
    await shot('compare-split');
  });

  it('updates when a pack file changes on disk, and says what changed', async () => {
    await page.click('#tab-layers');
    await page.waitForSelector('.band[data-layer="role"]');
    const marker = 'Live edit: always attach the staging build number to a QA report.';
    const file = join(service.dir, 'roles', 'qa.md');
    writeFileSync(file, `${readFileSync(file, 'utf8').trimEnd()}\n\n${marker}\n`);
    await page.waitForFunction(
      (text) => document.querySelector('.band[data-layer="role"] pre')?.textContent?.includes(text),
      marker,
      { timeout: 60_000 },
    );
    expect(await page.textContent('#notice-text')).toContain('grace');
    expect(await page.getAttribute('.band[data-layer="role"]', 'class')).toContain('changed');
    const want = await expected({ agent: 'grace', settings: { fable_mode_enabled: true } });
    expect(await page.getAttribute('main', 'data-sha')).toBe(want.sha256);
    await page.locator('.band[data-layer="role"]').scrollIntoViewIfNeeded();
    await shot('live-update');
    await page.evaluate(() => window.scrollTo(0, 0));
  });

  it('shows a banner with file and line when a reload fails, and keeps the last good prompt', async () => {
    const sha = await page.getAttribute('main', 'data-sha');
    const file = join(service.dir, 'identities', 'grace.md');
    const good = readFileSync(file, 'utf8');
    writeFileSync(file, '---\nrole: qa\nteam: [payments\n---\nGrace.\n');
    await page.waitForSelector('#banner:not([hidden])', { timeout: 60_000 });
    const banner = await page.textContent('#banner-diagnostics');
    expect(banner).toMatch(/^error [A-Z_]+: identities\/grace\.md:\d+:\d+: /m);
    expect(await page.getAttribute('main', 'data-sha')).toBe(sha);
    expect(await bands()).not.toEqual([]);
    await shot('reload-error');

    writeFileSync(file, good);
    await page.waitForSelector('#banner', { state: 'hidden', timeout: 60_000 });
  });

  it('shows the fleet as sortable stacked bars; a bar opens its agent', async () => {
    await page.click('#nav-fleet');
    await page.waitForSelector('.fleet-row');
    const snapshot = await loadPackStrict(service.dir, { env: {} });
    const fleet = snapshot.fleet.map((a) => a.id);
    const ids = () => page.$$eval('.fleet-row', (els) => els.map((el) => (el as HTMLElement).dataset.agent));
    expect(await ids()).toEqual(fleet);
    const sizes = fleet.map(
      (id) => [id, compose(snapshot, { agent: id, settings: { fable_mode_enabled: true } }).bytes] as const,
    );
    // One segment per included layer.
    const ada = compose(snapshot, { agent: 'ada', settings: { fable_mode_enabled: true } });
    expect(await page.locator('.fleet-row[data-agent="ada"] .seg').count()).toBe(
      ada.layers.filter((l) => l.included).length,
    );
    await shot('fleet-view');

    await page.click('#sort-bytes');
    await expect
      .poll(ids)
      .toEqual(
        [...sizes].sort((a, b) => b[1] - a[1] || fleet.indexOf(a[0]) - fleet.indexOf(b[0])).map(([id]) => id),
      );
    expect(new URL(page.url()).searchParams.get('sort')).toBe('bytes');

    await page.click('.fleet-row[data-agent="ken"] button');
    await expect.poll(() => page.textContent('#who-title')).toContain('ken');
    expect(Object.fromEntries(new URL(page.url()).searchParams)).toMatchObject({
      agent: 'ken',
      'set.fable_mode_enabled': 'true',
    });
  });

  it('opens deep links, compares with the previous pack version, and works from the keyboard', async () => {
    await page.goto(`${service.url}/?agent=grace&tab=compare&cmp=previous`);
    await page.waitForSelector('#diff-summary');
    expect(await page.textContent('#diff-summary')).toContain('previous version');
    expect(await page.isChecked('#cmp-previous')).toBe(true);

    await page.focus('#tab-compare');
    await page.keyboard.press('ArrowLeft');
    await page.waitForSelector('#prompt-text');
    expect(await page.getAttribute('#tab-text', 'aria-selected')).toBe('true');
    const want = await expected({ agent: 'grace' });
    expect(await page.textContent('#prompt-text')).toBe(want.text);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('tab-text');
  });

  it('folds the bands into a stack of labels', async () => {
    await page.goto(`${service.url}/?agent=ada&set.fable_mode_enabled=true`);
    await page.waitForSelector('.band[data-layer="fable"]');
    await page.click('#collapse-all');
    expect(await page.locator('.band details[open]').count()).toBe(0);
    await page.click('.band[data-layer="ponytail"] summary');
    expect(await page.locator('.band details[open]').count()).toBe(1);
    await shot('agent-view-stack');
  });

  it('is readable in dark mode', async () => {
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.goto(`${service.url}/?agent=ada&set.fable_mode_enabled=true`);
    await page.waitForSelector('.band[data-layer="fable"]');
    const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const fg = await page.evaluate(() => getComputedStyle(document.body).color);
    expect(luminance(bg)).toBeLessThan(0.1);
    expect(luminance(fg)).toBeGreaterThan(0.6);
    await shot('agent-view-dark');
    await page.click('#nav-fleet');
    await page.waitForSelector('.fleet-row');
    await shot('fleet-view-dark');
    expect(pageErrors).toEqual([]);
    if (process.env.UPDATE_DOCS_IMAGES) {
      mkdirSync(join(ROOT, 'docs', 'images'), { recursive: true });
      copyFileSync(join(SHOTS, 'agent-view-stack.png'), join(ROOT, 'docs', 'images', 'agent-view.png'));
      copyFileSync(join(SHOTS, 'fleet-view.png'), join(ROOT, 'docs', 'images', 'fleet-view.png'));
    }
  });
});

/** Relative luminance (0–1) of a CSS `rgb(r, g, b)` colour. */
function luminance(css: string): number {
  const [r, g, b] = (css.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map((v) => Number(v) / 255);
  const lin = (c: number) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
  return 0.2126 * lin(r!) + 0.7152 * lin(g!) + 0.0722 * lin(b!);
}
