import { describe, expect, it } from "vitest";
import { CONTENT_SECURITY_POLICY, HEADER_CONTENT_SECURITY_POLICY, headersFile } from "./csp.ts";

describe("the built site's Content-Security-Policy (issue 16)", () => {
  it("keeps frame-ancestors out of the meta tag, where CSP3 ignores it, and in the header", () => {
    expect(CONTENT_SECURITY_POLICY).not.toContain("frame-ancestors");
    expect(HEADER_CONTENT_SECURITY_POLICY).toBe(`${CONTENT_SECURITY_POLICY}; frame-ancestors 'none'`);
  });

  it("writes one `_headers` rule for every path, in the format Netlify and Cloudflare Pages read", () => {
    const lines = headersFile().split("\n");
    expect(lines[0]).toBe("/*");
    expect(lines).toContain(`  Content-Security-Policy: ${HEADER_CONTENT_SECURITY_POLICY}`);
    expect(lines).toContain("  X-Frame-Options: DENY");
    expect(lines.slice(1, -1).every((l) => /^ {2}[A-Za-z-]+: \S/.test(l))).toBe(true);
  });

  it("allows no inline or evaluated script", () => {
    const script = CONTENT_SECURITY_POLICY.split("; ").find((d) => d.startsWith("script-src "));
    expect(script).toBe("script-src 'self'");
  });
});
