/**
 * Colour-vision simulation and perceptual distance, to check that the
 * verdict palette stays apart for people with colour-blindness.
 *
 * Simulations: Machado, Oliveira and Fernandes (2009), "A Physiologically-based
 * Model for Simulation of Color Vision Deficiency", severity 1.0 matrices for
 * protanopia and deuteranopia, applied to linear sRGB; achromatopsia keeps the
 * relative luminance only (ITU-R BT.709 weights). Distance: Euclidean distance
 * in OKLab (Björn Ottosson, 2020), where about 0.02 is a just-noticeable step.
 */

export type Vision = "normal" | "deuteranopia" | "protanopia" | "achromatopsia";
export const VISIONS: readonly Vision[] = ["normal", "deuteranopia", "protanopia", "achromatopsia"];

type Rgb = [number, number, number];
type Matrix = [Rgb, Rgb, Rgb];

const MACHADO: Record<"deuteranopia" | "protanopia", Matrix> = {
  protanopia: [
    [0.152286, 1.052583, -0.204868],
    [0.114503, 0.786281, 0.099216],
    [-0.003882, -0.048116, 1.051998],
  ],
  deuteranopia: [
    [0.367322, 0.860646, -0.227968],
    [0.280085, 0.672501, 0.047413],
    [-0.01182, 0.04294, 0.968881],
  ],
};

export function parseHex(hex: string): Rgb {
  const h = hex.replace(/^#/, "");
  const full = h.length === 3 ? [...h].map((c) => c + c).join("") : h;
  if (!/^[0-9a-fA-F]{6}$/.test(full)) throw new Error(`not a #rrggbb colour: ${hex}`);
  return [0, 2, 4].map((i) => parseInt(full.slice(i, i + 2), 16) / 255) as Rgb;
}

const toLinear = (c: number) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
const clamp01 = (c: number) => Math.min(1, Math.max(0, c));

/** Linear sRGB of a colour as a person with the given vision sees it. */
export function simulate(hex: string, vision: Vision): Rgb {
  const lin = parseHex(hex).map(toLinear) as Rgb;
  if (vision === "normal") return lin;
  if (vision === "achromatopsia") {
    const y = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2];
    return [y, y, y];
  }
  const m = MACHADO[vision];
  return m.map((row) => clamp01(row[0] * lin[0] + row[1] * lin[1] + row[2] * lin[2])) as Rgb;
}

/** Linear sRGB -> OKLab (L, a, b). */
export function oklab([r, g, b]: Rgb): Rgb {
  const l = Math.cbrt(0.4122214708 * r + 0.5363325363 * g + 0.0514459929 * b);
  const m = Math.cbrt(0.2119034982 * r + 0.6806995451 * g + 0.1073969566 * b);
  const s = Math.cbrt(0.0883024619 * r + 0.2817188376 * g + 0.6299787005 * b);
  return [
    0.2104542553 * l + 0.793617785 * m - 0.0040720468 * s,
    1.9779984951 * l - 2.428592205 * m + 0.4505937099 * s,
    0.0259040371 * l + 0.7827717662 * m - 0.808675766 * s,
  ];
}

/** Perceptual distance between two colours as seen with the given vision. */
export function distance(a: string, b: string, vision: Vision): number {
  const x = oklab(simulate(a, vision));
  const y = oklab(simulate(b, vision));
  return Math.hypot(x[0] - y[0], x[1] - y[1], x[2] - y[2]);
}
