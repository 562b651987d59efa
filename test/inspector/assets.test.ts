import { describe, expect, it } from 'vitest';
import { inspectorAssets } from '../../src/inspector/assets.js';

const text = (body: Uint8Array | string) =>
  typeof body === 'string' ? body : new TextDecoder().decode(body);

describe('inspectorAssets', () => {
  it('serves the page at / and every file it loads, with content types', async () => {
    const assets = await inspectorAssets();
    expect(assets.get('/')?.type).toBe('text/html; charset=utf-8');
    expect(assets.get('/app.js')?.type).toBe('text/javascript; charset=utf-8');
    expect(assets.get('/style.css')?.type).toBe('text/css; charset=utf-8');
    expect(text(assets.get('/vendor/diff.js')!.body)).toContain('.Diff=');
    expect(assets.has('/index.html')).toBe(false);
  });

  it('holds every script, style and module the page refers to, and nothing from elsewhere', async () => {
    const assets = await inspectorAssets();
    const html = text(assets.get('/')!.body);
    const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    for (const ref of refs.filter((r) => r.startsWith('/'))) expect(assets.has(ref), ref).toBe(true);
    for (const [path, asset] of assets) {
      if (!path.endsWith('.js') || path.startsWith('/vendor/')) continue;
      for (const m of text(asset.body).matchAll(/from '\.\/([^']+)'/g))
        expect(assets.has(`/${m[1]}`), `${path} → ${m[1]}`).toBe(true);
    }
    for (const [path, asset] of assets) expect(text(asset.body), path).not.toMatch(/https?:\/\//);
  });

  it('stays small', async () => {
    const assets = await inspectorAssets();
    let total = 0;
    for (const asset of assets.values())
      total += typeof asset.body === 'string' ? Buffer.byteLength(asset.body) : asset.body.byteLength;
    expect(total).toBeLessThan(150_000);
  });
});

describe('the inspector files over HTTP', () => {
  it('carry an ETag (the sha256 of their bytes) and answer 304 to an If-None-Match naming it', async () => {
    const { createHash } = await import('node:crypto');
    const { appFor, MINI } = await import('../server/helpers.js');
    const assets = await inspectorAssets();
    const { app, close } = await appFor(MINI, { assets: async () => assets });
    try {
      for (const path of ['/', '/app.js', '/diagnostic-format.js']) {
        const asset = assets.get(path)!;
        const bytes = typeof asset.body === 'string' ? Buffer.from(asset.body) : asset.body;
        const etag = `"${createHash('sha256').update(bytes).digest('hex')}"`;
        const first = await app.request(path);
        expect([first.status, first.headers.get('etag'), first.headers.get('cache-control')]).toEqual([
          200,
          etag,
          'no-cache',
        ]);
        expect(Buffer.from(await first.arrayBuffer()).equals(Buffer.from(bytes))).toBe(true);
        for (const held of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
          const again = await app.request(path, { headers: { 'if-none-match': held } });
          expect([again.status, again.headers.get('etag'), await again.text()], held).toEqual([
            304,
            etag,
            '',
          ]);
        }
        const changed = await app.request(path, { headers: { 'if-none-match': '"other"' } });
        expect(changed.status).toBe(200);
      }
    } finally {
      close();
    }
  });
});
