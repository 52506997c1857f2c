"""The page's own scripts, put in its <head> (`head_html`): sortable tables, and with sign-in a visible prompt when
the server no longer knows this tab's sign-in.

They are delegated to the document, so they keep working when Gradio replaces a panel's HTML. The sign-in watch wraps
`fetch` before Gradio's client loads: an event the server refuses with 401 (a sign-in the server forgot: it restarted,
or this user signed out in another tab) or 403 (this tab's session belongs to another account, ui.session_owner) used
to end in silence, the stale answer still shown (issue 51).
"""

from __future__ import annotations

import json

# Sort a `table.rag-sortable` by the column whose header button was clicked (again: the other way), numbers as
# numbers (a cell's data-sort, else its text); the order is applied again when the table is re-rendered.
SORT_JS = """
(() => {
  const sorted = {};
  const value = (row, index) => { const cell = row.children[index];
    return cell ? (cell.dataset.sort !== undefined ? cell.dataset.sort : cell.innerText.trim()) : ""; };
  const sort = (table, index, direction) => {
    const body = table.tBodies[0]; if (!body) return;
    const rows = [...body.rows];
    const numeric = rows.every(r => { const v = value(r, index); return v === "" || !isNaN(Number(v)); });
    rows.sort((a, b) => { const x = value(a, index), y = value(b, index);
      const order = numeric ? Number(x) - Number(y) : x.localeCompare(y, undefined, {numeric: true, sensitivity: "base"});
      return direction === "ascending" ? order : -order; });
    rows.forEach(r => body.appendChild(r));
    [...table.tHead.rows[0].cells].forEach((th, i) => th.setAttribute("aria-sort", i === index ? direction : "none"));
    table.dataset.sortedBy = index + direction;
  };
  document.addEventListener("click", (event) => {
    const button = event.target.closest && event.target.closest("table.rag-sortable th button");
    if (!button) return;
    const th = button.closest("th"), table = th.closest("table");
    const index = [...th.parentElement.children].indexOf(th);
    const direction = th.getAttribute("aria-sort") === "ascending" ? "descending" : "ascending";
    sorted[table.id] = [index, direction];
    sort(table, index, direction);
  });
  new MutationObserver(() => {
    for (const [id, [index, direction]] of Object.entries(sorted)) {
      const table = document.getElementById(id);
      if (table && table.dataset.sortedBy !== index + direction) sort(table, index, direction);
    }
  }).observe(document.documentElement, {childList: true, subtree: true});
})();
"""

SIGNED_OUT_401 = ("You are no longer signed in: the server restarted or forgot your sign-in, or you signed out in "
                  "another tab. Nothing was asked; the result below may be out of date.")
SIGNED_OUT_403 = ("This tab's session belongs to another account (someone signed in as another user in this browser). "
                  "Nothing was asked; the result below may be out of date.")

# A 401 or 403 from the app's API: a banner that says so, with a button to sign in again, and the results dimmed.
SIGNED_OUT_JS = """
(() => {
  const said = %s;
  const show = (status) => {
    document.body.classList.add("rag-signed-out");
    if (document.getElementById("signed-out")) return;
    const banner = document.createElement("div");
    banner.id = "signed-out"; banner.setAttribute("role", "alert");
    const text = document.createElement("span"); text.textContent = "⚠ " + said[status] + " ";
    const again = document.createElement("a"); again.href = "./"; again.className = "rag-sign-in-again";
    again.textContent = "Sign in again";
    banner.append(text, again);
    document.body.prepend(banner);
  };
  const original = window.fetch;
  window.fetch = async (...args) => {
    const response = await original(...args);
    const url = String((args[0] && args[0].url) || args[0] || "");
    if ((response.status === 401 || response.status === 403) && url.includes("/gradio_api/")) show(response.status);
    return response;
  };
})();
""" % json.dumps({"401": SIGNED_OUT_401, "403": SIGNED_OUT_403})


def head_html(signed_in: bool) -> str:
    """The scripts the page's <head> carries: the sign-in watch only where there is sign-in."""
    scripts = [SORT_JS] + ([SIGNED_OUT_JS] if signed_in else [])
    return "".join(f"<script>{script}</script>" for script in scripts)
