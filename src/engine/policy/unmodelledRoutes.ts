/**
 * No silent answers for the routers ktl evaluates itself: the ingress-nginx annotations on an
 * Ingress and the Gateway API HTTPRoute fields that change what a request gets and that engine/l7
 * does not evaluate, each named as a route-scope field (KTL460) with what the proxy does instead.
 */
import type { KObject } from "../parse/manifests.ts";
import type { UnmodelledObject } from "../model/types.ts";
import { arr, isObj } from "../parse/values.ts";
import { routeField } from "./unmodelled.ts";
import { EVALUATED_NGINX_ANNOTATIONS, NGINX_ANNOTATION_PREFIX } from "../parse/nginxAnnotations.ts";

/** The annotations a canary Ingress keeps of its own (the rest are the main Ingress's). */
const CANARY_OWN =
  /^(load-balance|upstream-hash-by|affinity|affinity-mode|affinity-canary-behavior|session-cookie-.+)$/;
/** What ingress-nginx does with the annotations that change where a request goes or what it gets back, and ktl does not. */
const NGINX_EFFECT: [RegExp, string][] = [
  [
    /^(whitelist|allowlist|denylist)-source-range$/,
    "clients are admitted or refused (403) by address at the controller; ktl admits every client",
  ],
  [/^(permanent|temporal)-redirect$/, "the controller redirects every request; ktl routes it to the backend"],
  [/^rewrite-target$/, "the backend receives a rewritten path; ktl judges the path as sent"],
  [/^use-regex$/, "paths are regular expressions; ktl matches them as prefixes"],
  [/^app-root$/, "a request for / is redirected to the app root; ktl routes it"],
  [
    /^auth-(url|signin|type|secret)$/,
    "requests need the authentication's approval first; ktl routes them without it",
  ],
  [/^(server|configuration|stream)-snippet$/, "raw nginx configuration is not read"],
  [
    /^default-backend$/,
    "unmatched requests go to this Service instead of the controller's 404; ktl answers 404",
  ],
  [/^custom-http-errors$/, "the default backend answers these statuses instead of the backend"],
  [/^backend-protocol$/, "the controller speaks another protocol to the backend; ktl assumes HTTP"],
  [/^limit-/, "requests over the limit are refused (503); ktl admits every request"],
];

/**
 * ingress-nginx's annotations on an Ingress that ktl does not evaluate (it evaluates the canary
 * ones, l7/ingress.ts rule 5): each named as a route-scope field with what the controller does.
 */
export function unevaluatedIngressAnnotations(objects: readonly KObject[]): UnmodelledObject[] {
  const out: UnmodelledObject[] = [];
  for (const o of objects) {
    if (o.kind !== "Ingress" || !o.apiVersion.startsWith("networking.k8s.io/")) continue;
    const meta = o.raw.metadata;
    const annotations = isObj(meta) && isObj(meta.annotations) ? meta.annotations : undefined;
    if (!annotations) continue;
    // A canary Ingress takes its other annotations from the main Ingress (annotations.md, Canary): only these apply to it.
    const canary = annotations[`${NGINX_ANNOTATION_PREFIX}canary`] === "true";
    for (const key of Object.keys(annotations)) {
      if (!key.startsWith(NGINX_ANNOTATION_PREFIX) || EVALUATED_NGINX_ANNOTATIONS.has(key)) continue;
      const name = key.slice(NGINX_ANNOTATION_PREFIX.length);
      if (canary && !CANARY_OWN.test(name)) continue;
      const effect =
        NGINX_EFFECT.find(([re]) => re.test(name))?.[1] ?? "not evaluated: ktl routes as if it were absent";
      const field = `metadata.annotations["${key}"]`;
      out.push(routeField(o, annotations, key, field, `ingress-nginx annotation not evaluated: ${effect}`));
    }
  }
  return out;
}

/** What the filters engine/l7/gateway.ts does not apply do (RequestRedirect and URLRewrite it applies). */
const FILTER_EFFECT: Record<string, string> = {
  RequestHeaderModifier:
    "the backend receives the modified headers; the backends' own L7 rules are judged on the headers as sent",
  ResponseHeaderModifier: "changes the response's headers only",
  RequestMirror: "a copy of each request goes to the mirror backend; ktl does not judge that copy",
  CORS: "preflight requests are answered by the gateway; ktl routes them to the backend",
  ExtensionRef: "an implementation's own filter, which may answer the request itself, is not evaluated",
};

/** A rule's fields the gateway trace does not apply, and what the gateway does with them. */
const RULE_FIELDS: [string, string][] = [
  ["timeouts", "a backend slower than the timeout gets the client a 504; backend latency is not modelled"],
  ["retry", "failed requests are not retried by ktl"],
  ["sessionPersistence", "ktl spreads every request over the backends as if each were a new session"],
];

/** The HTTPRoute fields engine/l7/gateway.ts does not evaluate: filters other than RequestRedirect and URLRewrite, timeouts, retry, sessionPersistence. */
export function unevaluatedGatewayRouteFields(objects: readonly KObject[]): UnmodelledObject[] {
  const out: UnmodelledObject[] = [];
  for (const o of objects) {
    if (o.kind !== "HTTPRoute" || !o.apiVersion.startsWith("gateway.networking.k8s.io/")) continue;
    const spec = o.raw.spec;
    if (!isObj(spec)) continue;
    arr(spec.rules).forEach((r, i) => {
      if (!isObj(r)) return;
      const at = `spec.rules[${i}]`;
      const filters = (list: unknown, path: string) =>
        arr(list).forEach((f, j) => {
          const type = isObj(f) && typeof f.type === "string" ? f.type : "";
          if (type === "RequestRedirect" || type === "URLRewrite" || !isObj(f)) return;
          const effect = FILTER_EFFECT[type] ?? "not evaluated";
          out.push(
            routeField(o, f, "type", `${path}[${j}]`, `${type || "a filter without a type"}: ${effect}`),
          );
        });
      filters(r.filters, `${at}.filters`);
      arr(r.backendRefs).forEach((b, k) => isObj(b) && filters(b.filters, `${at}.backendRefs[${k}].filters`));
      for (const [key, effect] of RULE_FIELDS)
        if (r[key] !== undefined) out.push(routeField(o, r, key, `${at}.${key}`, effect));
    });
  }
  return out;
}
