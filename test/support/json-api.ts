import assert from 'node:assert/strict';

/** A reply of the server: its status and its parsed body (an empty body reads as {}). */
export interface JsonReply {
  status: number;
  // Tests read whatever the route answers.
  json: any;
}

export type JsonApi = (method: string, url: string, body?: unknown) => Promise<JsonReply>;

/** Calls a running server with an API key, JSON in and out. base and apikey are read at each call (set after start). */
export function jsonApi(base: () => string, apikey: () => string): JsonApi {
  return async (method, url, body) => {
    const r = await fetch(`${base()}${url}`, {
      method,
      headers: { apikey: apikey(), 'content-type': 'application/json' },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const text = await r.text();
    return { status: r.status, json: JSON.parse(text || '{}') };
  };
}

/** As jsonApi, but a status other than 2xx fails the test (with the body); answers the body. */
export function jsonApiOk(api: JsonApi): (method: string, url: string, body?: unknown) => Promise<any> {
  return async (method, url, body) => {
    const r = await api(method, url, body);
    assert.ok(r.status >= 200 && r.status < 300, `${method} ${url}: ${r.status} ${JSON.stringify(r.json)}`);
    return r.json;
  };
}
