/**
 * The worker on the embedded database (docs/webhooks.md, "Running the worker": on the embedded database it runs in
 * the `serve` process): pg-boss on PGlite's single connection through knex, next to API requests, as
 * `serve` runs it. PGlite does not load inside jest's VM, so embedded-child.ts runs it in a child
 * process; the receiver and the assertions are here.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { receiver } from './harness';

jest.setTimeout(120_000);

it('delivers a signed row.created from the same process, retrying once, sharing the one connection with API requests', async () => {
  const r = await receiver((_req, i) => ({ status: i === 0 ? 500 : 200 }));
  try {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'embedded-child.ts')], {
      cwd: path.resolve(__dirname, '../../..'),
      env: { ...process.env, RECEIVER_URL: r.url },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect([code, err]).toEqual([0, '']);
    const result = JSON.parse(out.trim()) as { secret: string; row: Record<string, unknown>; delivery: Record<string, unknown> };
    expect(result.delivery).toMatchObject({ status: 'succeeded', attempts: 2, last_status_code: 200, event_type: 'row.created' });
    expect(r.received).toHaveLength(2);
    for (const g of r.received) {
      expect(new Webhook(result.secret).verify(g.body, g.headers as Record<string, string>)).toMatchObject({ type: 'row.created', data: result.row });
    }
  } finally {
    await r.close();
  }
});
