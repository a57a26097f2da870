/**
 * A workshop's hand-out: the session's lessons, each with its goal, question
 * and a row per question to write a prediction in; the answers, the edits to
 * try and the sources come after all the questions (in print, on pages of
 * their own), so the sheet can go round the room before the reveal. Markdown
 * for a repository or a wiki, HTML for a browser's print dialog. Pure.
 */
import type { Lesson, LessonCheck } from "../../../scenarios/lessons.ts";
import { questionLabel } from "./question.ts";
import { sourceLink } from "./sources.ts";
import { mdCodeCell } from "../../engine/markdown.ts";

const num = (l: Lesson) => String(l.number).padStart(2, "0");

function checkText(c: LessonCheck): string {
  return `${questionLabel(c)}${c.cni ? ` · --cni ${c.cni}` : ""}`;
}

function answerOf(c: LessonCheck): string {
  const http = c.http ? `, ${c.httpStatus ? `HTTP ${c.httpStatus}` : "no HTTP answer"}` : "";
  return `${c.verdict}${http}`;
}

export function handoutMarkdown(title: string, lessons: readonly Lesson[]): string {
  const out: string[] = [`# ${title}`, ""];
  out.push(
    `${lessons.length} lesson${lessons.length === 1 ? "" : "s"}: predict each question, then turn to the answers.`,
    "",
  );
  for (const l of lessons) {
    out.push(`## ${num(l)} · ${l.title}`, "", l.goal, "", `**Question.** ${l.question}`, "");
    out.push("| Question | Your prediction |", "|---|---|");
    for (const c of l.checks) out.push(`| ${mdCodeCell(checkText(c))} |  |`);
    out.push("");
  }
  out.push("---", "", "# Answers", "");
  for (const l of lessons) {
    out.push(`## ${num(l)} · ${l.title}`, "", l.answer, "");
    out.push("| Question | The engine's answer |", "|---|---|");
    for (const c of l.checks) out.push(`| ${mdCodeCell(checkText(c))} | ${answerOf(c)} |`);
    out.push("", `**Try:** ${l.edit.description} ${l.edit.lookFor}`, "", "Sources:", "");
    for (const s of l.sources) {
      const link = sourceLink(s);
      out.push(
        `- ${link.href ? `[${link.text}](${link.href})` : link.text}${link.note ? ` ${link.note}` : ""}`,
      );
    }
    out.push("");
  }
  return out.join("\n");
}

const esc = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** A self-contained page (no script, no remote resource) laid out for print: the answers start on a new page. */
export function handoutHtml(title: string, lessons: readonly Lesson[]): string {
  const rows = (l: Lesson, answers: boolean) =>
    `<table><thead><tr><th>Question</th><th>${answers ? "The engine's answer" : "Your prediction"}</th></tr></thead><tbody>${l.checks
      .map(
        (c) =>
          `<tr><td><code>${esc(checkText(c))}</code></td><td>${answers ? esc(answerOf(c)) : ""}</td></tr>`,
      )
      .join("")}</tbody></table>`;
  const questions = lessons
    .map(
      (l) =>
        `<section class="lesson"><h2>${num(l)} · ${esc(l.title)}</h2><p class="goal">${esc(l.goal)}</p><p><strong>Question.</strong> ${esc(l.question)}</p>${rows(l, false)}</section>`,
    )
    .join("\n");
  const answers = lessons
    .map((l) => {
      const sources = l.sources
        .map((s) => {
          const link = sourceLink(s);
          return `<li>${link.href ? `<a href="${esc(link.href)}">${esc(link.text)}</a>` : esc(link.text)}${link.note ? ` ${esc(link.note)}` : ""}</li>`;
        })
        .join("");
      return `<section class="lesson"><h2>${num(l)} · ${esc(l.title)}</h2><p>${esc(l.answer)}</p>${rows(l, true)}<p><strong>Try:</strong> ${esc(l.edit.description)} ${esc(l.edit.lookFor)}</p><p class="sources">Sources:</p><ul class="sources">${sources}</ul></section>`;
    })
    .join("\n");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${esc(title)}</title>
<style>
  body { font: 11pt/1.45 system-ui, sans-serif; max-width: 46em; margin: 2em auto; padding: 0 1em; color: #111; }
  h1 { font-size: 20pt; } h2 { font-size: 14pt; margin-top: 1.6em; }
  table { border-collapse: collapse; width: 100%; margin: 0.6em 0; }
  th, td { border: 1px solid #999; padding: 0.35em 0.5em; text-align: left; vertical-align: top; }
  td:last-child { width: 38%; height: 1.8em; }
  code { font-size: 9.5pt; overflow-wrap: anywhere; }
  .goal { color: #444; } .sources { font-size: 9.5pt; }
  @page { margin: 16mm; }
  @media print {
    body { margin: 0; max-width: none; }
    .lesson { break-inside: avoid; }
    .answers { break-before: page; }
    a { color: inherit; }
  }
</style>
</head>
<body>
<h1>${esc(title)}</h1>
<p>${lessons.length} lesson${lessons.length === 1 ? "" : "s"}: predict each question, then turn to the answers.</p>
${questions}
<div class="answers">
<h1>Answers</h1>
${answers}
</div>
</body>
</html>
`;
}
