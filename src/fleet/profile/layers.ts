// Which layer a CPU profile's frame belongs to, by the source file it runs in: idsync's own
// modules (dist/ or src/, the folders of docs/architecture.md) and the packages under them. A
// frame that names no layer of its own (V8 builtins such as JSON.parse, natives, node's
// internals, the small helpers every layer calls) takes its caller's: JSON.parse called by the
// store is the store's cost, base64url called by the envelope is the envelope's.

/** The layers a flow's CPU is split into, in the order tables show them. */
export const LAYERS = [
  'envelope',
  'router',
  'conformance',
  'agents',
  'store',
  'credentials',
  'did',
  'http',
  'link',
  'fleet',
  'gc',
  'runtime',
  'other',
] as const;
export type Layer = (typeof LAYERS)[number];

/** What each layer holds (the legend under a table). */
export const LAYER_LEGEND: Record<Layer, string> = {
  envelope: 'DIDComm envelopes: didcomm/envelope, crypto, keys; @noble, sodium-native, didcomm-node',
  router: 'router (receive, replay, records, resend), didcomm messages and transports other than HTTP',
  conformance: 'conformance checks of each message in and out',
  agents: "protocol handlers and the two agents' logic: protocols, service (not http), wallet, mediator",
  store: 'store collections and their JSON encoding; level',
  credentials: 'credentials: issue, verify, status lists, canonicalization; jsonld, rdf-canonize',
  did: 'DID documents and resolution (did:ion long form, did:web); did-resolver',
  http: "HTTP: the service's fastify (inject, routes, schemas, serializers), fetch/undici, net guard",
  link: "the fleet's link between threads (MessagePort posts and their structured clones)",
  fleet: 'the fleet itself: runner, wallet pool, scenarios, histograms, testing helpers',
  gc: "V8's garbage collector",
  runtime: 'event loop and promise machinery, node internals not called from idsync code',
  other: "V8 '(program)' and packages not listed",
};

/** Packages by layer (the name under node_modules). */
const PACKAGES: [RegExp, Layer][] = [
  [/^(@noble\/|sodium-native$|didcomm-node$|@stablelib\/)/, 'envelope'],
  [/^(level|abstract-level|memory-level|classic-level|browser-level|level-transcoder|level-supports|module-error|maybe-combine-errors)$/, 'store'],
  [/^(jsonld|rdf-canonize|@digitalbazaar\/|canonicalize$|jose$|setimmediate$|lru-cache$)/, 'credentials'],
  [/^(did-resolver|@decentralized-identity\/)/, 'did'],
  [/^(fastify|@fastify\/|light-my-request|find-my-way|avvio|fast-json-stringify|fast-uri|fast-querystring|fast-decode-uri-component|ajv|@sinclair\/typebox|undici|process-warning|abstract-logging|pino|real-require|safe-regex2|ret|rfdc|toad-cache|secure-json-parse|json-schema-ref-resolver|content-type|cookie|set-cookie-parser|proxy-addr|forwarded|ipaddr\.js|semver)/, 'http'],
  [/^(hdr-histogram-js|pako|base64-js)$/, 'fleet'],
];

/** idsync's modules (first folder or file under dist/ or src/) by layer; sub-paths first. */
const MODULES: [RegExp, Layer | 'inherit'][] = [
  [/^didcomm\/envelope\//, 'envelope'],
  [/^didcomm\/transport\/http\./, 'http'],
  [/^service\/http\//, 'http'],
  [/^fleet\/link(-service)?\./, 'link'],
  [/^(crypto\/|keys\.)/, 'envelope'],
  [/^(router|didcomm)\//, 'router'],
  [/^conformance\//, 'conformance'],
  [/^(protocols|service|wallet|mediator)\//, 'agents'],
  [/^store\//, 'store'],
  [/^credentials\//, 'credentials'],
  [/^did\//, 'did'],
  [/^(net\/|http-fetch\.|listen\.)/, 'http'],
  [/^(fleet|testing)\//, 'fleet'],
  // Helpers every layer calls: their cost is their caller's.
  [/^(encoding|errors|json-depth|bounded|deep-freeze|clock|keyed-lock|wait|crash-point)\.|^errors\//, 'inherit'],
];

export interface Frame {
  url: string;
  functionName: string;
}

/**
 * The layer of one frame, or 'inherit' when it takes its caller's (builtins, natives, node
 * internals, shared helpers), or a marker: '(gc)', '(idle)', '(program)', '(root)'.
 */
export function layerOfFrame(f: Frame): Layer | 'inherit' | '(idle)' | '(root)' {
  const url = f.url;
  if (!url) {
    switch (f.functionName) {
      case '(garbage collector)':
        return 'gc';
      case '(idle)':
        return '(idle)';
      case '(root)':
        return '(root)';
      case '(program)':
        return 'other';
      default:
        return 'inherit';
    }
  }
  if (url.startsWith('node:')) {
    // fetch and its Response (node's bundled undici): what an HTTP client costs.
    if (url.startsWith('node:internal/deps/undici/')) return 'http';
    return 'inherit';
  }
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + '/node_modules/'.length);
    const name = rest.startsWith('@') ? rest.split('/').slice(0, 2).join('/') : rest.split('/')[0]!;
    for (const [re, layer] of PACKAGES) if (re.test(name)) return layer;
    return 'other';
  }
  const own = /\/(?:dist|src)\/(.+)$/.exec(url);
  if (own) {
    for (const [re, layer] of MODULES) if (re.test(own[1]!)) return layer;
    return 'other';
  }
  if (/\/bench\//.test(url)) return 'fleet';
  return 'other';
}
