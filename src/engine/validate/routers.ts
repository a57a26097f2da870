/**
 * The L7 routers' objects as their admission and their controllers judge
 * them (the routers themselves are read in l7/, which names the rules):
 * - HTTPRoute: the CRD's size limits (gateway-api apis/v1
 *   httproute_types.go MaxItems, v1.2 on), which the apiserver enforces, and
 *   RegularExpression values RE2 rejects, whose rule the Gateway drops
 *   (shared_types.go RouteConditionPartiallyInvalid): a KTL454 warning.
 * - VirtualService: istiod's validating webhook rejects a regex that is
 *   empty, longer than 1024 characters or not RE2 (pkg/config/validation
 *   validateStringMatchRegexp): an error with code KTL454.
 * A regex RE2 accepts but ktl does not evaluate (too large a program) is a
 * KTL454 warning either way.
 */
import type { KObject } from "../parse/manifests.ts";
import { parseHTTPRoute } from "../l7/gatewayObjects.ts";
import { virtualServiceRegexErrors } from "../l7/mesh.ts";
import { finding, type Finding, type Warning } from "./findings.ts";

const GATEWAY_CRD = "gateway-api HTTPRoute CRD (apis/v1/httproute_types.go)";
const ISTIOD = "istiod validating webhook (pkg/config/validation validateStringMatchRegexp)";
const RE2_HINT = "Use RE2 syntax (github.com/google/re2/wiki/Syntax): no lookaround or backreferences.";

/** A finding at a field path and line l7/ already resolved. */
function at(
  o: KObject,
  field: string,
  line: number,
  type: Finding["type"],
  detail: string,
  upstream: string,
): Finding {
  return {
    ...finding(o, { path: [], type: "Invalid value", detail, upstream }),
    field,
    type,
    line: line || o.line,
  };
}

export function validateHTTPRoute(o: KObject): { errors: Finding[]; warnings: Warning[] } {
  const route = parseHTTPRoute(o);
  const errors = route.tooMany.map((e) =>
    at(
      o,
      e.field,
      e.line,
      e.message ? "Invalid value" : "Too many",
      e.message ?? `${e.count}: must have at most ${e.max} items`,
      GATEWAY_CRD,
    ),
  );
  const warnings: Warning[] = route.rules.flatMap((r) =>
    r.regexErrors.map((e) => ({
      ...at(
        o,
        e.field,
        e.line,
        "Warning",
        e.tooLarge
          ? `${JSON.stringify(e.source)}: ${e.error}; ktl takes the match as matching nothing`
          : `${JSON.stringify(e.source)} is not an RE2 regular expression (${e.error}): the Gateway drops rule ${r.index + 1} (PartiallyInvalid, "Dropped Rule")${route.rules.every((x) => x.regexErrors.some((y) => !y.tooLarge)) ? " and, every rule being invalid, does not accept the route" : ""}`,
        "gateway-api shared_types.go RouteConditionPartiallyInvalid; Envoy safe_regex (RE2)",
      ),
      code: "KTL454" as const,
      hint: RE2_HINT,
    })),
  );
  return { errors, warnings };
}

export function validateVirtualService(o: KObject): { errors: Finding[]; warnings: Warning[] } {
  const errors: Finding[] = [];
  const warnings: Warning[] = [];
  for (const e of virtualServiceRegexErrors(o)) {
    if (e.tooLarge)
      warnings.push({
        ...at(
          o,
          e.field,
          e.line,
          "Warning",
          `${JSON.stringify(e.source)}: ${e.error}; ktl takes the match as matching nothing`,
          "ktl",
        ),
        code: "KTL454",
        hint: RE2_HINT,
      });
    else
      errors.push({
        ...at(
          o,
          e.field,
          e.line,
          "Invalid value",
          `admission webhook "validation.istio.io" denied the request: ${e.error}`,
          ISTIOD,
        ),
        code: "KTL454",
      });
  }
  return { errors, warnings };
}
