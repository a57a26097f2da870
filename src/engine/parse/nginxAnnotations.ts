/** ingress-nginx's annotation names that ktl reads: the canary ones (l7/ingress.ts rule 5); every other one is named as not evaluated (policy/unmodelled.ts). */
export const NGINX_ANNOTATION_PREFIX = "nginx.ingress.kubernetes.io/";

export const CANARY_ANNOTATIONS: ReadonlySet<string> = new Set(
  [
    "canary",
    "canary-by-header",
    "canary-by-header-value",
    "canary-by-header-pattern",
    "canary-by-cookie",
    "canary-weight",
    "canary-weight-total",
  ].map((a) => NGINX_ANNOTATION_PREFIX + a),
);
