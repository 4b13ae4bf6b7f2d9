import type { TSchema } from '@sinclair/typebox';
import { ErrorBody } from './schemas/common.js';
import { ROUTES, type RouteSpec } from './routes.js';

/** Fastify's `:param` becomes OpenAPI's `{param}`. */
function openapiPath(path: string): string {
  return path.replace(/:([A-Za-z]+)/g, '{$1}');
}

function parametersOf(where: 'path' | 'query', schema: TSchema | undefined) {
  if (!schema || !schema.properties) return [];
  const required = new Set<string>(schema.required ?? []);
  return Object.entries(schema.properties as Record<string, TSchema>).map(([name, s]) => ({
    name,
    in: where,
    required: where === 'path' || required.has(name),
    schema: s,
  }));
}

function operation(id: string, r: RouteSpec) {
  const op: Record<string, unknown> = {
    operationId: id,
    summary: r.summary,
    parameters: [...parametersOf('path', r.params), ...parametersOf('query', r.querystring)],
    responses: {
      [String(r.status)]: {
        description: 'Success',
        ...(r.response ? { content: { 'application/json': { schema: r.response } } } : {}),
      },
      default: { description: 'Error', content: { 'application/json': { schema: ErrorBody } } },
    },
  };
  if (r.body) op.requestBody = { required: true, content: { 'application/json': { schema: r.body } } };
  if (r.auth === 'apikey') op.security = r.engineToken ? [{ apikey: [] }, { engineToken: [] }] : [{ apikey: [] }];
  return op;
}

/** The OpenAPI 3.1 document of every route, generated from the route table. */
export function buildOpenApiDocument(version: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [id, r] of Object.entries(ROUTES) as [string, RouteSpec][]) {
    const p = openapiPath(r.path);
    paths[p] ??= {};
    paths[p][r.method.toLowerCase()] = operation(id, r);
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Runyard API', version, description: 'CloudOS-compatible analysis platform API' },
    components: {
      securitySchemes: {
        apikey: { type: 'apiKey', in: 'header', name: 'apikey' },
        engineToken: { type: 'http', scheme: 'bearer', description: "The workspace's engine token (the Cromwell routes only)" },
      },
    },
    paths,
  };
}
