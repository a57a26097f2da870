/**
 * The `--probability` of kube-proxy's load-balancing rules, from what
 * kube-proxy writes to what `iptables-save` prints back.
 *
 * 1. kube-proxy (pkg/proxy/iptables/proxier.go computeProbability) writes
 *    fmt.Sprintf("%0.10f", 1.0/float64(n)) for the i-th of n endpoints, with
 *    n counting the endpoints from i to the last.
 * 2. iptables (extensions/libxt_statistic.c statistic_parse) stores
 *    lround(0x80000000 * strtod(text)) in the kernel's u32
 *    xt_statistic_info.u.random.probability; the kernel matches when
 *    (prandom_u32() & 0x7FFFFFFF) < probability (net/netfilter/xt_statistic.c).
 * 3. iptables-save (statistic_save -> print_match) prints
 *    "%.11f" of 1.0 * probability / 0x80000000.
 *
 * Both printf-style steps round the exact binary value to nearest, ties to
 * even (Go's strconv and glibc printf), which formatFixed reproduces exactly.
 */

const TWO31 = 0x80000000;

/** Exact numerator/denominator of a finite, non-negative double. */
function exactFraction(x: number): { num: bigint; den: bigint } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const hi = view.getUint32(0);
  const lo = view.getUint32(4);
  const exp = (hi >>> 20) & 0x7ff;
  let mantissa = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let e: number;
  if (exp === 0) e = -1074;
  else {
    mantissa |= 1n << 52n;
    e = exp - 1075;
  }
  return e >= 0 ? { num: mantissa << BigInt(e), den: 1n } : { num: mantissa, den: 1n << BigInt(-e) };
}

/** printf("%.<digits>f", x) for x >= 0, rounding the exact value half to even. */
export function formatFixed(x: number, digits: number): string {
  if (!(x >= 0) || !Number.isFinite(x)) throw new RangeError(`formatFixed: ${x}`);
  const { num, den } = exactFraction(x);
  const scaled = num * 10n ** BigInt(digits);
  let q = scaled / den;
  const r = scaled - q * den;
  if (r * 2n > den || (r * 2n === den && q % 2n === 1n)) q += 1n;
  const s = q.toString().padStart(digits + 1, "0");
  return digits === 0 ? s : `${s.slice(0, s.length - digits)}.${s.slice(s.length - digits)}`;
}

/** computeProbability(n): what kube-proxy writes for a 1-in-n choice. */
export function kubeProxyProbability(n: number): string {
  return formatFixed(1 / n, 10);
}

/** statistic_parse: the kernel's u32 for a --probability argument (lround rounds halves away from zero). */
export function kernelProbability(text: string): number {
  return Math.round(TWO31 * Number.parseFloat(text));
}

/** statistic_save: how iptables-save prints a stored probability. */
export function savedProbability(kernel: number): string {
  return formatFixed(kernel / TWO31, 11);
}

/** The chance that the kernel's statistic match fires for a stored value. */
export function matchChance(kernel: number): number {
  return kernel / TWO31;
}
