/** The L7 routers in front of a Service: Gateway API, Ingress, Istio (sidecar mode). */
export { toL7Request, toWire, header, hostOf, formatRequest } from "./request.ts";
export type { HttpRequest } from "./request.ts";
export { traceL7, parseL7Destination, parseAnyDestination, decidedByOf, meshPresent } from "./trace.ts";
export type { L7Destination, L7TraceResult, L7Backend } from "./trace.ts";
export type { DecidedBy, Redirect, L7Layer } from "./common.ts";
