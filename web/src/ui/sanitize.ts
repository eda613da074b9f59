// HTML that did not come from us (model markdown, a DataFrame's _repr_html_) goes through
// DOMPurify: no scripts, no event handlers, no javascript: links, and images only from data:/blob:
// so nothing rendered can make a request to another host.
import DOMPurify, { type Config } from "dompurify";

const INLINE_IMAGE = /^(data:image\/(png|jpeg|gif|webp);base64,|blob:)/i;

const purifier = DOMPurify(window);
purifier.addHook("afterSanitizeAttributes", (node) => {
  if (node.tagName === "IMG" && !INLINE_IMAGE.test(node.getAttribute("src") ?? "")) {
    node.removeAttribute("src");
    node.setAttribute("data-blocked", node.getAttribute("alt") ?? "");
  }
  if (node.tagName === "A") {
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer nofollow");
  }
});

const CONFIG: Config & { RETURN_DOM_FRAGMENT: true } = {
  FORBID_TAGS: [
    "style",
    "form",
    "input",
    "button",
    "textarea",
    "select",
    "iframe",
    "object",
    "embed",
    "link",
    "meta",
    "base",
    "svg",
    "math",
  ],
  FORBID_ATTR: ["style", "srcset", "action", "formaction", "background", "poster", "xlink:href"],
  ALLOW_DATA_ATTR: false,
  ADD_ATTR: ["data-blocked"],
  RETURN_DOM_FRAGMENT: true,
};

export function safeHtml(html: string): DocumentFragment {
  const fragment = purifier.sanitize(html, CONFIG);
  // Say plainly what was dropped rather than leave an empty image box.
  for (const image of fragment.querySelectorAll("img[data-blocked]")) {
    const alt = image.getAttribute("data-blocked");
    image.replaceWith(`[image not shown: only inline images are allowed${alt ? `: ${alt}` : ""}]`);
  }
  return fragment;
}
