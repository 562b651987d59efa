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
