// The project's docs/*.md as simple pages, rendered by a small Markdown subset (headings,
// paragraphs, lists, code blocks, tables, emphasis, inline code and links). Text only: nothing
// from a page becomes HTML.

import { t } from "./i18n.js";
import { h, clear, getJSON } from "./dom.js";

function inline(text) {
  const out = [];
  const re = /(`[^`]+`)|(\*\*[^*]+\*\*)|(\*[^*\s][^*]*\*)|(\[[^\]]+\]\([^)\s]+\))/g;
  let last = 0;
  let m;
  while ((m = re.exec(text))) {
    if (m.index > last) out.push(text.slice(last, m.index));
    const t = m[0];
    if (m[1]) out.push(h("code", {}, t.slice(1, -1)));
    else if (m[2]) out.push(h("strong", {}, t.slice(2, -2)));
    else if (m[3]) out.push(h("em", {}, t.slice(1, -1)));
    else {
      const [, label, href] = t.match(/\[([^\]]+)\]\(([^)\s]+)\)/);
      out.push(h("a", { href: docHref(href) }, label));
    }
    last = m.index + t.length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

function docHref(href) {
  if (/^(https?:|mailto:)/.test(href)) return href;
  const m = href.match(/^(?:\.\/)?([\w-]+)\.md(#.*)?$/);
  if (m) return `/docs-pages/${m[1]}${m[2] || ""}`;
  if (href.startsWith("screenshots/")) return `/docs-pages/${href}`;
  return href.startsWith("#") ? href : "#";
}

export function markdown(text) {
  const lines = text.replace(/\r/g, "").split("\n");
  const out = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (/^```/.test(line)) {
      const code = [];
      i++;
      while (i < lines.length && !/^```/.test(lines[i])) code.push(lines[i++]);
      i++;
      out.push(h("pre", {}, h("code", {}, code.join("\n"))));
      continue;
    }
    const head = line.match(/^(#{1,6})\s+(.*)$/);
    if (head) {
      const level = Math.min(6, head[1].length + 1); // the page title is the h1
      const slug = head[2].toLowerCase().replace(/[^\w]+/g, "-").replace(/^-|-$/g, "");
      out.push(h(`h${level}`, { id: slug }, inline(head[2])));
      i++;
      continue;
    }
    if (/^\s*\|/.test(line)) {
      const rows = [];
      while (i < lines.length && /^\s*\|/.test(lines[i])) rows.push(lines[i++]);
      const cells = (r) => r.trim().replace(/^\||\|$/g, "").split("|").map((c) => c.trim());
      // the |---|---| row separates the head from the body
      const [first, ...rest] = rows.filter((r) => !/^\s*\|[\s:|-]+\|\s*$/.test(r));
      out.push(h("div", { class: "table-wrap" }, h("table", {},
        h("thead", {}, h("tr", {}, cells(first).map((c) => h("th", {}, inline(c))))),
        h("tbody", {}, rest.map((r) => h("tr", {}, cells(r).map((c) => h("td", {}, inline(c)))))))));
      continue;
    }
    const image = line.match(/^!\[([^\]]*)\]\(screenshots\/([\w.-]+\.png)\)/);
    if (image) {
      out.push(h("p", {}, h("img", { src: `/docs-pages/screenshots/${image[2]}`, alt: image[1], class: "shot", loading: "lazy" })));
      i++;
      continue;
    }
    if (/^\s*([-*]|\d+\.)\s+/.test(line)) {
      const ordered = /^\s*\d+\./.test(line);
      const items = [];
      while (i < lines.length && /^\s*([-*]|\d+\.)\s+/.test(lines[i])) {
        let item = lines[i].replace(/^\s*([-*]|\d+\.)\s+/, "");
        i++;
        while (i < lines.length && /^\s{2,}\S/.test(lines[i]) && !/^\s*([-*]|\d+\.)\s+/.test(lines[i])) item += " " + lines[i++].trim();
        items.push(h("li", {}, inline(item)));
      }
      out.push(h(ordered ? "ol" : "ul", {}, items));
      continue;
    }
    if (!line.trim()) { i++; continue; }
    const para = [line];
    i++;
    while (i < lines.length && lines[i].trim() && !/^(#|```|\s*\||\s*([-*]|\d+\.)\s)/.test(lines[i])) para.push(lines[i++]);
    out.push(h(/^>/.test(para[0]) ? "blockquote" : "p", {}, inline(para.join(" ").replace(/^>\s?/, ""))));
  }
  return out;
}

export async function renderDocs(main, name) {
  clear(main).appendChild(h("p", { class: "muted" }, t("web.account.loading")));
  try {
    const { pages } = await getJSON("/api/docs-pages");
    const nav = h("nav", { class: "doc-nav", "aria-label": t("web.docs.pages") }, h("ul", {},
      pages.map((p) => h("li", {}, h("a", { href: `/docs-pages/${p.name}`, "aria-current": p.name === name ? "page" : undefined }, p.title)))),
    h("p", { class: "small" }, h("a", { href: "/docs" }, t("web.docs.api"))));
    if (!name) {
      clear(main).append(h("h1", {}, t("web.docs.title")), pages.length ? nav : h("p", {}, t("web.docs.missing")));
      return;
    }
    const reply = await fetch(`/api/docs-pages/${encodeURIComponent(name)}`);
    if (!reply.ok) throw new Error(t("web.docs.no_page", { name }));
    const text = await reply.text();
    const title = (text.match(/^# (.*)$/m) || [null, name])[1];
    const body = markdown(text.replace(/^# .*$/m, ""));
    clear(main).appendChild(h("div", { class: "docs" }, nav, h("article", {}, h("h1", {}, title), body)));
  } catch (err) {
    clear(main).append(h("h1", {}, t("web.docs.title")), h("p", { class: "error" }, err.message));
  }
}
