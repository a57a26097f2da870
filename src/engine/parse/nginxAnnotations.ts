/** ingress-nginx's annotation names that ktl reads (l7/ingress.ts rules 5 and 6); every other one is named as not evaluated (policy/unmodelledRoutes.ts). */
export const NGINX_ANNOTATION_PREFIX = "nginx.ingress.kubernetes.io/";

export const EVALUATED_NGINX_ANNOTATIONS: ReadonlySet<string> = new Set(
  [
    "ssl-redirect",
    "force-ssl-redirect",
    "canary",
    "canary-by-header",
    "canary-by-header-value",
    "canary-by-header-pattern",
    "canary-by-cookie",
    "canary-weight",
    "canary-weight-total",
  ].map((a) => NGINX_ANNOTATION_PREFIX + a),
);
