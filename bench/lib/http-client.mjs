// A lean JSON client for the benchmarks' job clients: node:http with keep-alive connections.
// The clients share the two cores with the server under test, so what they spend is charged to
// Runyard: fetch (undici) spent about three times the CPU of node:http per request here, about a
// tenth of the machine during B4's submissions.
import http from 'node:http';
import { assertLoopback } from './loopback.mjs';

const agents = new Map();

function agentFor(base) {
  let agent = agents.get(base);
  if (!agent) agents.set(base, (agent = new http.Agent({ keepAlive: true, maxSockets: 64 })));
  return agent;
}

/** A JSON request with the key; answers the parsed body, throws on a status other than 2xx or after timeoutMs. */
export function request(base, apikey, method, route, body, timeoutMs = 10_000) {
  assertLoopback(base);
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  const headers = { apikey, ...(payload && { 'content-type': 'application/json', 'content-length': payload.length }) };
  return new Promise((resolve, reject) => {
    const req = http.request(base + route, { method, headers, agent: agentFor(base), timeout: timeoutMs }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if (res.statusCode < 200 || res.statusCode > 299) reject(new Error(`${method} ${route}: ${res.statusCode} ${text.slice(0, 300)}`));
        else resolve(text ? JSON.parse(text) : undefined);
      });
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${route}: no reply within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(payload);
  });
}
