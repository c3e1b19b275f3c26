// bench view: sorting, filtering and search over the tables, and the charts; everything runs from the page itself.
"use strict";

function cellKey(row, column) {
  const cell = row.cells[column];
  if (!cell) return "";
  const key = cell.getAttribute("data-key");
  return key !== null ? key : cell.textContent.trim();
}

function compareKeys(a, b) {
  const x = parseFloat(a), y = parseFloat(b);
  const xn = a !== "" && !isNaN(x), yn = b !== "" && !isNaN(y);
  if (xn && yn) return x - y;
  if (xn !== yn) return xn ? -1 : 1;  // numbers before empty cells, whichever way the column runs
  return a.localeCompare(b);
}

function sortBy(table, column, th) {
  const order = th.getAttribute("data-order") === "asc" ? "desc" : "asc";
  Array.from(table.tHead.rows[0].cells).forEach(h => h.removeAttribute("data-order"));
  th.setAttribute("data-order", order);
  const body = table.tBodies[0];
  const rows = Array.from(body.rows);
  rows.sort((r, s) => {
    const c = compareKeys(cellKey(r, column), cellKey(s, column));
    return order === "asc" ? c : -c;
  });
  rows.forEach(r => body.appendChild(r));
}

// --- items: each row's record is in the page's JSON; its detail is drawn the first time it is opened ---

let records = null;

function recordOf(row) {
  if (records === null) {
    const data = document.getElementById("items-data");
    records = data ? JSON.parse(data.textContent) : [];
  }
  const index = row.getAttribute("data-i");
  return index === null ? null : records[Number(index)];
}

function element(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = text;
  if (cls) node.className = cls;
  return node;
}

function block(label, value) {
  const div = element("div");
  div.appendChild(element("b", label));
  const values = Array.isArray(value) && value.every(v => typeof v === "string") ? value : [value];
  if (values.length === 0) values.push("(none)");
  values.forEach(v => div.appendChild(element("pre", typeof v === "string" ? v : JSON.stringify(v, null, 1), "block")));
  return div;
}

function ranked(answer, relevant) {
  const div = element("div");
  div.appendChild(element("b", "ranked chunks"));
  div.appendChild(document.createTextNode(" (relevant in bold, with their grade)"));
  const list = element("ol", null, "ranked");
  const retrieved = new Set();
  answer.forEach(entry => {
    const [chunk, score] = Array.isArray(entry) ? entry : [entry, null];
    retrieved.add(String(chunk));
    const grade = relevant[String(chunk)];
    const item = element("li", null, grade ? "relevant" : "");
    item.appendChild(element("span", String(chunk), "mono"));
    item.appendChild(document.createTextNode(
      (typeof score === "number" ? " " + score.toFixed(4) : "") + (grade ? ` ✓ grade ${grade}` : "")));
    list.appendChild(item);
  });
  div.appendChild(list);
  const missed = Object.keys(relevant).filter(c => relevant[c] && !retrieved.has(c));
  if (missed.length) div.appendChild(element("div", "relevant, not retrieved: " + missed.join(", "), "muted"));
  return div;
}

function scoresTable(scores) {
  const table = element("table");
  const head = table.createTHead().insertRow();
  ["metric", "scorer", "value", "status", "why"].forEach(h => head.appendChild(element("th", h)));
  const body = table.createTBody();
  Object.entries(scores || {}).forEach(([metric, byScorer]) => {
    Object.entries(byScorer || {}).forEach(([scorer, score]) => {
      const row = body.insertRow();
      [metric, scorer, typeof score.value === "number" ? score.value.toFixed(4) : (score.value ?? "—"),
       score.status, score.explanation || ""].forEach(cell => row.insertCell().textContent = String(cell));
    });
  });
  return table;
}

function drawDetail(details) {
  if (details.getAttribute("data-drawn")) return;
  const record = recordOf(details.closest("tr"));
  if (!record) return;
  details.setAttribute("data-drawn", "1");
  Object.entries(record.inputs || {}).forEach(([name, value]) => details.appendChild(block(name, value)));
  const answer = record.answer;
  if (Array.isArray(answer) && record.relevant && typeof record.relevant === "object") {
    details.appendChild(ranked(answer, record.relevant));
  } else if (answer && typeof answer === "object" && !Array.isArray(answer)) {
    Object.entries(answer).forEach(([name, value]) => details.appendChild(block(name, value)));
  } else if (answer !== undefined && answer !== null) {
    details.appendChild(block("answer", answer));
  }
  details.appendChild(scoresTable(record.scores));
}

function searchText(row) {
  if (row.__text === undefined) {
    const record = recordOf(row);
    row.__text = (row.textContent + (record ? " " + JSON.stringify(record) : "")).toLowerCase();
  }
  return row.__text;
}

function applyFilters(table) {
  const box = document.querySelector(`[data-search="${table.id}"]`);
  const needle = box ? box.value.trim().toLowerCase() : "";
  const selects = document.querySelectorAll(`select[data-filters="${table.id}"]`);
  let shown = 0;
  Array.from(table.tBodies[0].rows).forEach(row => {
    let keep = !needle || searchText(row).includes(needle);
    selects.forEach(s => {
      if (s.value && row.getAttribute("data-" + s.name) !== s.value) keep = false;
    });
    row.hidden = !keep;
    if (keep) shown += 1;
  });
  const count = document.querySelector(`[data-count="${table.id}"]`);
  if (count) count.textContent = `${shown} shown`;
}

function drawCharts() {
  if (typeof Plotly === "undefined") return;
  document.querySelectorAll(".chart[data-figure]").forEach(div => {
    const spec = JSON.parse(document.getElementById(div.getAttribute("data-figure")).textContent);
    Plotly.newPlot(div, spec.data, spec.layout, {displayModeBar: false, responsive: true});
  });
}

document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll("table.sortable").forEach(table => {
    Array.from(table.tHead.rows[0].cells).forEach((th, column) =>
      th.addEventListener("click", () => sortBy(table, column, th)));
  });
  document.querySelectorAll("[data-search]").forEach(box => {
    const table = document.getElementById(box.getAttribute("data-search"));
    box.addEventListener("input", () => applyFilters(table));
  });
  document.querySelectorAll("select[data-filters]").forEach(select => {
    const table = document.getElementById(select.getAttribute("data-filters"));
    select.addEventListener("change", () => applyFilters(table));
  });
  document.addEventListener("toggle", event => {
    if (event.target.matches && event.target.matches("details.item") && event.target.open) drawDetail(event.target);
  }, true);
  drawCharts();
});
