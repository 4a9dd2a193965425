#!/usr/bin/env node
/**
 * A tiny webhook receiver for feedback-service (docs/webhooks.md): verifies each request's Standard
 * Webhooks signature with the endpoint's secret and prints the event.
 *
 *   WEBHOOK_SECRET=whsec_… PORT=4000 node examples/webhook-receiver.js
 *
 * Register http://127.0.0.1:4000/ as an endpoint (the server needs WEBHOOK_ALLOW_HTTP=true and
 * WEBHOOK_ALLOW_PRIVATE=true to deliver to a local address).
 */
'use strict';
const http = require('node:http');
const { Webhook } = require('standardwebhooks');

const secret = process.env.WEBHOOK_SECRET;
if (!secret || !secret.startsWith('whsec_')) {
  console.error('Set WEBHOOK_SECRET to the endpoint secret (whsec_…) from the create or rotate-secret answer.');
  process.exit(1);
}
const wh = new Webhook(secret);
const port = Number(process.env.PORT || 4000);
const seen = new Set();

http
  .createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      // Verify the raw body, exactly as received.
      const body = Buffer.concat(chunks).toString('utf8');
      let event;
      try {
        event = wh.verify(body, req.headers);
      } catch (e) {
        console.error(`rejected: ${e.message}`);
        res.writeHead(400).end('bad signature');
        return;
      }
      // Delivery is at least once: the event id is the same on every attempt.
      const again = seen.has(event.id);
      seen.add(event.id);
      console.log(`${again ? '(again) ' : ''}${event.type} ${event.id} at ${event.timestamp}`);
      console.log(JSON.stringify(event.data, null, 2));
      res.writeHead(204).end();
    });
  })
  .listen(port, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${port}/`));
