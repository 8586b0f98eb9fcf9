// Gymnasia Coach web client: vanilla JS, no build step, nothing loaded from elsewhere.
// Every value from the server is placed with textContent, never parsed as HTML.
"use strict";

(() => {
  const config = JSON.parse(document.getElementById("gym-config").textContent);
  const T = config.texts;

  // -- small DOM helpers ---------------------------------------------------------------------

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "class") node.className = value;
      else if (key === "text") node.textContent = value;
      else if (key.startsWith("data-")) node.setAttribute(key, String(value));
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? "" : String(value));
    }
    for (const child of children) {
      if (child === null || child === undefined) continue;
      node.append(typeof child === "string" ? document.createTextNode(child) : child);
    }
    return node;
  }

  function pretty(value) {
    return JSON.stringify(value, null, 2);
  }

  function count(n, key) {
    return n === 1 ? T[`${key}_one`] : T[`${key}_many`].replace("{n}", String(n));
  }

  function withLang(params) {
    const query = new URLSearchParams(params);
    query.set("lang", config.lang);
    return "?" + query.toString();
  }

  // -- NDJSON turn streams -------------------------------------------------------------------

  async function postStream(url, payload, onEvent) {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/x-ndjson" },
      body: JSON.stringify(payload),
      credentials: "same-origin",
    });
    const type = response.headers.get("content-type") || "";
    if (!response.ok || !type.startsWith("application/x-ndjson")) {
      let body = null;
      try {
        body = await response.json();
      } catch (_) {
        body = null;
      }
      return { status: response.status, body };
    }
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (value) buffer += decoder.decode(value, { stream: true });
      let newline;
      while ((newline = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, newline).trim();
        buffer = buffer.slice(newline + 1);
        if (line) onEvent(JSON.parse(line));
      }
      if (done) break;
    }
    if (buffer.trim()) onEvent(JSON.parse(buffer));
    return { status: response.status, body: null };
  }

  // -- the chat page -------------------------------------------------------------------------

  function chatPage() {
    const messages = document.getElementById("messages");
    const welcome = document.getElementById("welcome");
    const trace = document.getElementById("trace");
    const traceEmpty = document.getElementById("trace-empty");
    const form = document.getElementById("composer");
    const input = document.getElementById("message");
    const send = document.getElementById("send");
    const list = document.getElementById("conversations");

    const state = { conversationId: null, turns: 0, busy: false, pending: null };
    let live = null; // the turn being streamed: {bubble, calls, shownText, shownHarness, head}

    function scrollDown() {
      messages.scrollTop = messages.scrollHeight;
      trace.parentElement.scrollTop = trace.parentElement.scrollHeight;
    }

    function setBusy(busy) {
      state.busy = busy;
      const blocked = busy || state.pending !== null;
      input.disabled = blocked;
      send.disabled = blocked;
      form.classList.toggle("blocked", state.pending !== null);
      input.placeholder = state.pending !== null ? T.pending_blocks : input.dataset.placeholder;
    }

    function reset() {
      state.conversationId = null;
      state.turns = 0;
      state.pending = null;
      live = null;
      messages.replaceChildren(welcome);
      welcome.hidden = false;
      trace.replaceChildren();
      traceEmpty.hidden = false;
      setBusy(false);
      markCurrent();
    }

    function setConversation(id) {
      state.conversationId = id;
      const url = id ? withLang({ c: id }) : withLang({});
      history.replaceState(null, "", url);
      // switching the page's language keeps the open conversation
      for (const link of document.querySelectorAll(".lang-switch a[hreflang]")) {
        const query = new URLSearchParams({ lang: link.getAttribute("hreflang") });
        if (id) query.set("c", id);
        link.setAttribute("href", `${location.pathname}?${query.toString()}`);
      }
      markCurrent();
    }

    // -- rendering one turn --------------------------------------------------------------

    function beginTurn(userText) {
      welcome.hidden = true;
      traceEmpty.hidden = true;
      state.turns += 1;
      if (userText !== null) {
        messages.append(
          el("div", { class: "msg user" },
            el("div", { class: "author", text: T.you }),
            el("div", { class: "bubble", text: userText })),
        );
      }
      const head = el("li", { class: "trace-turn", "data-turn": state.turns },
        el("span", { class: "turn-number", text: `${T.turn} ${state.turns}` }),
        el("span", { class: "turn-text", text: userText || "" }),
        el("span", { class: "turn-meta" }));
      trace.append(head);
      live = { bubble: null, calls: 0, shownText: "", shownHarness: false, head };
      scrollDown();
    }

    function continueTurn() {
      const heads = trace.querySelectorAll(".trace-turn");
      if (!heads.length) {
        beginTurn("");
        return;
      }
      live = { bubble: null, calls: 0, shownText: "", shownHarness: false, head: heads[heads.length - 1] };
      showThinking();
    }

    function coachBubble() {
      if (live.bubble === null) {
        const bubble = el("div", { class: "bubble" });
        messages.append(
          el("div", { class: "msg coach" }, el("div", { class: "author", text: T.coach }), bubble),
        );
        live.bubble = bubble;
      }
      return live.bubble;
    }

    function addText(text) {
      const bubble = coachBubble();
      bubble.classList.remove("thinking");
      if (!live.shownText) bubble.textContent = "";
      live.shownText += text;
      bubble.textContent = live.shownText;
      scrollDown();
    }

    function showThinking() {
      const bubble = coachBubble();
      bubble.classList.add("thinking");
      bubble.textContent = T.thinking;
    }

    function clearThinking() {
      if (live && live.bubble && !live.shownText) {
        live.bubble.closest(".msg").remove();
        live.bubble = null;
      }
    }

    function addHarness(text, reason, check) {
      clearThinking();
      live.shownHarness = true;
      // a call waiting for a decision is shown once, by its approval card (showPending)
      if (reason !== "awaiting_confirmation") {
        // a stop over an unconfirmed write links the page that shows whether it was done
        const link = check && typeof check.href === "string" && check.href.startsWith("/")
          ? el("a", { class: "check-link", href: check.href, text: check.label })
          : null;
        messages.append(
          el("div", { class: "msg stop-banner", role: "alert", "data-reason": reason },
            el("div", { class: "stop-title", text: T.stopped_title }),
            el("div", { class: "stop-text", text }),
            link),
        );
        live.bubble = null;
      }
      scrollDown();
    }

    function addError(text) {
      if (live) clearThinking();
      messages.append(el("div", { class: "msg error-banner", role: "alert", text }));
      scrollDown();
    }

    function argumentsView(call) {
      if (call.arguments === null || call.arguments === undefined) {
        return el("div", { class: "trace-args raw" },
          el("span", { class: "label", text: T.raw_arguments }),
          el("code", { text: String(call.raw_arguments) }));
      }
      const entries = Object.entries(call.arguments);
      const box = el("dl", { class: "trace-args" });
      for (const [key, value] of entries) {
        box.append(el("dt", { text: key }), el("dd", { text: JSON.stringify(value) }));
      }
      return entries.length ? box : el("div", { class: "trace-args empty", text: "—" });
    }

    function addCall(call) {
      const outcome = call.outcome;
      const isError = outcome.is_error === true && outcome.kind === "tool_error";
      const status = isError ? "error" : "ok";
      const code = isError ? outcome.error : "ok";
      const classes = ["trace-entry", status];
      if (isError && outcome.recovery === "stop_turn") classes.push("stop");
      if (!call.executed) classes.push("not-executed");
      const badges = el("span", { class: "badges" },
        el("span", { class: `badge ${status}`, text: code }));
      if (isError) {
        badges.append(el("span", { class: "badge recovery", title: T.recovery, text: outcome.recovery }));
      }
      if (!call.executed) badges.append(el("span", { class: "badge muted", text: T.not_executed }));
      const entry = el("li", {
        class: classes.join(" "),
        "data-status": status,
        "data-code": code,
        "data-tool": call.name,
        "data-call-id": call.call_id,
        "data-executed": call.executed ? "true" : "false",
      },
      el("div", { class: "trace-head" }, el("span", { class: "tool", text: call.name }), badges),
      argumentsView(call));
      if (isError) entry.append(el("p", { class: "trace-message", text: outcome.message }));
      entry.append(
        el("details", { class: "trace-data" },
          el("summary", { text: T.outcome }),
          el("pre", { text: pretty(isError ? outcome : outcome.ok) })),
      );
      trace.append(entry);
      if (live) live.calls += 1;
      scrollDown();
    }

    function finishTurn(turn) {
      if (turn.reply && !live.shownText && !live.shownHarness) {
        if (turn.reply_author === "harness") addHarness(turn.reply, turn.stop_reason, null);
        else addText(turn.reply);
      }
      clearThinking();
      const meta = live.head.querySelector(".turn-meta");
      const requests = Number(live.head.dataset.requests || 0) + turn.model_requests;
      live.head.dataset.requests = String(requests);
      meta.textContent = `${turn.stop_reason} · ${count(requests, "requests")}`;
      live.head.dataset.stopReason = turn.stop_reason;
      if (turn.pending_confirmation) showPending(turn.pending_confirmation);
    }

    function onEvent(event) {
      switch (event.type) {
        case "start":
          setConversation(event.conversation_id);
          break;
        case "text":
          addText(event.text);
          break;
        case "call":
          addCall(event.call);
          if (!live.shownText) showThinking();
          break;
        case "harness":
          addHarness(event.text, event.reason, event.check);
          break;
        case "done":
          finishTurn(event.turn);
          break;
        case "error":
          addError(event.message);
          break;
        default:
          break;
      }
    }

    // -- confirmations -------------------------------------------------------------------

    function showPending(pending) {
      state.pending = pending;
      const status = el("div", { class: "pending-status" });
      const approve = el("button", { type: "button", class: "button approve", text: T.approve });
      const deny = el("button", { type: "button", class: "button deny", text: T.deny });
      // in words: the tool's own question when it asks one, else what will be done to what
      const call = pending.question
        ? el("p", { class: "pending-question", text: pending.question })
        : el("div", { class: "pending-call" },
          el("div", { class: "pending-action", text: pending.action || T.confirm_title }),
          pending.summary ? el("div", { class: "pending-summary", text: pending.summary }) : null);
      const card = el("div", { class: "msg pending-card", "data-call-id": pending.id, "data-tool": pending.tool },
        el("div", { class: "pending-title", text: T.confirm_title }),
        call,
        el("p", { class: "pending-body", text: T.confirm_body }),
        el("div", { class: "pending-actions" }, approve, deny),
        status);
      const decide = (approved) => () => {
        approve.disabled = true;
        deny.disabled = true;
        decideCall(pending, approved, card, status);
      };
      approve.addEventListener("click", decide(true));
      deny.addEventListener("click", decide(false));
      messages.append(card);
      setBusy(state.busy);
      scrollDown();
    }

    async function decideCall(pending, approved, card, status) {
      const id = state.conversationId;
      setBusy(true);
      card.classList.add(approved ? "approved" : "denied");
      status.textContent = approved ? T.approved : T.denied;
      state.pending = null;
      continueTurn();
      try {
        const url = `/api/approvals/${encodeURIComponent(id)}/${encodeURIComponent(pending.id)}`;
        const result = await postStream(url, { approved, lang: config.lang }, onEvent);
        if (result.status === 409 && result.body && result.body.error === "busy") addError(T.busy);
        else if (result.status === 409) status.textContent = T.already_decided;
        else if (result.status !== 200) addError(serverMessage(result));
      } catch (_) {
        addError(T.network_error);
      } finally {
        clearThinking();
        setBusy(false);
        refreshConversations();
      }
    }

    // -- sending -------------------------------------------------------------------------

    // the server's own words for a refused request (in the page's language), else ours
    function serverMessage(result) {
      const message = result.body && result.body.message;
      return typeof message === "string" && message ? message : T.server_error;
    }

    async function submit(text) {
      if (state.busy || !text.trim()) return;
      setBusy(true);
      beginTurn(text);
      showThinking();
      input.value = "";
      const payload = { message: text, lang: config.lang };
      if (state.conversationId) payload.conversation_id = state.conversationId;
      try {
        const result = await postStream("/api/chat", payload, onEvent);
        if (result.status === 409 && result.body && result.body.pending) {
          clearThinking();
          addError(T.pending_blocks);
          showPending(result.body.pending);
        } else if (result.status === 409 && result.body && result.body.error === "busy") {
          clearThinking();
          addError(T.busy);
        } else if (result.status !== 200) {
          clearThinking();
          addError(serverMessage(result));
        }
      } catch (_) {
        addError(T.network_error);
      } finally {
        setBusy(false);
        refreshConversations();
        if (!input.disabled) input.focus();
      }
    }

    // -- conversations -------------------------------------------------------------------

    function markCurrent() {
      for (const item of list.querySelectorAll(".conv")) {
        const current = item.dataset.id === state.conversationId;
        item.classList.toggle("current", current);
        if (current) item.setAttribute("aria-current", "true");
        else item.removeAttribute("aria-current");
      }
    }

    async function refreshConversations() {
      let data;
      try {
        const response = await fetch("/api/conversations", { credentials: "same-origin" });
        if (!response.ok) return;
        data = await response.json();
      } catch (_) {
        return;
      }
      list.replaceChildren();
      if (!data.conversations.length) {
        list.append(el("li", { class: "conv-empty", text: T.no_conversations }));
        return;
      }
      for (const conv of data.conversations) {
        const link = el("a", {
          class: "conv",
          href: withLang({ c: conv.id }),
          "data-id": conv.id,
          onclick: (event) => {
            event.preventDefault();
            if (!state.busy) loadConversation(conv.id);
          },
        },
        el("span", { class: "conv-title", text: conv.title || conv.id }),
        el("span", { class: "conv-meta", text: count(conv.messages, "messages") }));
        if (conv.pending) link.append(el("span", { class: "conv-pending", text: "●", title: T.confirm_title }));
        list.append(el("li", {}, link));
      }
      markCurrent();
    }

    async function loadConversation(id) {
      let data;
      try {
        const response = await fetch(`/api/conversations/${encodeURIComponent(id)}${withLang({})}`, {
          credentials: "same-origin",
        });
        if (!response.ok) {
          reset();
          return;
        }
        data = await response.json();
      } catch (_) {
        addError(T.network_error);
        return;
      }
      reset();
      setConversation(data.conversation_id);
      for (const item of data.items) {
        if (item.type === "user") beginTurn(item.text);
        else if (!live) beginTurn("");
        if (item.type === "assistant") {
          live.bubble = null;
          live.shownText = "";
          addText(item.text);
        } else if (item.type === "call") {
          addCall(item.call);
        } else if (item.type === "harness") {
          addHarness(item.text, item.reason, item.check);
        }
      }
      if (data.pending_confirmation) showPending(data.pending_confirmation);
      setBusy(false);
    }

    // -- wiring --------------------------------------------------------------------------

    input.dataset.placeholder = input.placeholder;
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      submit(input.value);
    });
    input.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        submit(input.value);
      }
    });
    for (const button of document.querySelectorAll(".example")) {
      button.addEventListener("click", () => {
        if (input.disabled) return;
        input.value = button.textContent;
        input.focus();
      });
    }
    document.getElementById("new-conversation").addEventListener("click", () => {
      if (state.busy) return;
      reset();
      setConversation(null);
      closePanels();
      input.focus();
    });

    // on a narrow screen the conversations and the trace open over the chat, one at a time
    const toggles = {
      conversations: document.getElementById("toggle-conversations"),
      trace: document.getElementById("toggle-trace"),
    };
    function closePanels() {
      for (const [name, button] of Object.entries(toggles)) {
        document.body.classList.remove(`show-${name}`);
        button.setAttribute("aria-expanded", "false");
      }
    }
    for (const [name, button] of Object.entries(toggles)) {
      button.addEventListener("click", () => {
        const open = !document.body.classList.contains(`show-${name}`);
        closePanels();
        document.body.classList.toggle(`show-${name}`, open);
        button.setAttribute("aria-expanded", open ? "true" : "false");
      });
    }
    list.addEventListener("click", (event) => {
      if (event.target.closest(".conv")) closePanels();
    });

    const initial = new URLSearchParams(location.search).get("c");
    refreshConversations();
    if (initial) loadConversation(initial);
    document.body.dataset.ready = "true";
  }

  // -- the edit and delete dialogs of the measurements and records pages ---------------------

  // POST a JSON body; {ok, body}, where body carries the server's words (or the network's)
  async function post(url, payload) {
    try {
      const response = await fetch(url + withLang({}), {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify(payload),
        credentials: "same-origin",
      });
      let body = null;
      try {
        body = await response.json();
      } catch (_) {
        body = null;
      }
      return { ok: response.ok, body };
    } catch (_) {
      return { ok: false, body: { message: T.network_error } };
    }
  }

  // what a failed post says to the person
  function message(result) {
    return (result.body && result.body.message) || T.server_error;
  }

  function fail(node, text) {
    node.textContent = text;
    node.hidden = false;
  }

  // -- the measurements page: edit and delete one record --------------------------------------

  function measurementsPage() {
    const editDialog = document.getElementById("edit-dialog");
    const deleteDialog = document.getElementById("delete-dialog");
    if (!editDialog || !deleteDialog) return; // no records: nothing to edit
    const form = document.getElementById("edit-form");
    const editError = document.getElementById("edit-error");
    const deleteError = document.getElementById("delete-error");
    const decimal = config.lang === "en" ? "." : ",";
    let current = null;

    function shown(value) {
      return value === null || value === undefined ? "" : String(value).replace(".", decimal);
    }

    function openEdit(row) {
      current = row.dataset.date;
      const values = JSON.parse(row.dataset.values);
      document.getElementById("edit-title").textContent = row.dataset.editTitle;
      form.elements.date.value = current;
      for (const [name, value] of Object.entries(values)) form.elements[name].value = shown(value);
      editError.hidden = true;
      editDialog.showModal();
      form.elements.weight_kg.focus();
    }

    function collect() {
      const payload = {};
      const date = form.elements.date.value.trim();
      if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) return { error: T.bad_date, input: "date" };
      if (date !== current) payload.new_date = date;
      const row = document.querySelector(`tr[data-date="${current}"]`);
      const before = JSON.parse(row.dataset.values);
      for (const name of Object.keys(before)) {
        const text = form.elements[name].value.trim();
        if (text === "") {
          if (before[name] !== null) payload[name] = null;
          continue;
        }
        if (!/^\d+([.,]\d+)?$/.test(text)) {
          return { error: T.field_invalid_any.replace("{field}", T[name]), input: name };
        }
        const value = Number(text.replace(",", "."));
        if (value !== before[name]) payload[name] = value;
      }
      return { payload };
    }

    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const { payload, error, input } = collect();
      if (error) {
        fail(editError, error);
        form.elements[input].focus();
        return;
      }
      const save = document.getElementById("edit-save");
      save.disabled = true;
      const result = await post(`/api/measurements/${current}/edit`, payload);
      save.disabled = false;
      if (!result.ok) {
        fail(editError, message(result));
        return;
      }
      location.reload();
    });
    document.getElementById("edit-cancel").addEventListener("click", () => editDialog.close());

    function openDelete(row) {
      current = row.dataset.date;
      document.getElementById("delete-title").textContent = row.dataset.deleteTitle;
      deleteError.hidden = true;
      deleteDialog.showModal();
      document.getElementById("delete-cancel").focus();
    }

    document.getElementById("delete-confirm").addEventListener("click", async (event) => {
      event.target.disabled = true;
      const result = await post(`/api/measurements/${current}/delete`, {});
      event.target.disabled = false;
      if (!result.ok) {
        fail(deleteError, message(result));
        return;
      }
      location.reload();
    });
    document.getElementById("delete-cancel").addEventListener("click", () => deleteDialog.close());

    for (const button of document.querySelectorAll(".edit-measurement")) {
      button.addEventListener("click", () => openEdit(button.closest("tr")));
    }
    for (const button of document.querySelectorAll(".delete-measurement")) {
      button.addEventListener("click", () => openDelete(button.closest("tr")));
    }
  }

  // -- meals, routines, notes and goals: edit and delete one record ---------------------------

  // Each row names its record (data-record, JSON merged into the request) and its editable
  // values (data-values); the page's two dialogs post to their data-url.
  function recordsPage() {
    const editDialog = document.getElementById("edit-dialog");
    const deleteDialog = document.getElementById("delete-dialog");
    if (!editDialog || !deleteDialog) return; // nothing saved: nothing to edit
    const form = document.getElementById("edit-form");
    const editError = document.getElementById("edit-error");
    const deleteError = document.getElementById("delete-error");
    const decimal = config.lang === "en" ? "." : ",";
    let row = null;

    function shown(input, value) {
      if (value === null || value === undefined) return "";
      return input.dataset.kind === "decimal" ? String(value).replace(".", decimal) : String(value);
    }

    function label(input) {
      return input.closest(".field").querySelector("span").textContent;
    }

    // what changed, typed as the API takes it; {error, input} for what cannot be sent
    function collect() {
      const before = JSON.parse(row.dataset.values);
      const payload = JSON.parse(row.dataset.record);
      let changed = false;
      for (const [name, old] of Object.entries(before)) {
        const input = form.elements[name];
        const text = input.value.trim();
        let value = input.tagName === "TEXTAREA" ? input.value : text;
        if (input.dataset.kind === "decimal") {
          if (!/^\d+([.,]\d+)?$/.test(text)) {
            return { error: T.field_invalid_any.replace("{field}", label(input)), input };
          }
          value = Number(text.replace(",", "."));
        } else if (input.dataset.kind === "date") {
          if (text !== "" && !/^\d{4}-\d{2}-\d{2}$/.test(text)) return { error: T.bad_date, input };
          value = text === "" ? null : text;
        }
        if (value !== old) {
          payload[name] = value;
          changed = true;
        }
      }
      return changed ? { payload } : { error: T.nothing_changed, input: form.elements[0] };
    }

    function openEdit(chosen) {
      row = chosen;
      document.getElementById("edit-title").textContent = row.dataset.editTitle;
      const values = JSON.parse(row.dataset.values);
      for (const [name, value] of Object.entries(values)) {
        form.elements[name].value = shown(form.elements[name], value);
      }
      editError.hidden = true;
      editDialog.showModal();
      form.elements[0].focus();
    }

    function openDelete(chosen) {
      row = chosen;
      document.getElementById("delete-title").textContent = row.dataset.deleteTitle;
      deleteError.hidden = true;
      deleteDialog.showModal();
      document.getElementById("delete-cancel").focus();
    }

    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const { payload, error, input } = collect();
      if (error) {
        fail(editError, error);
        input.focus();
        return;
      }
      const save = document.getElementById("edit-save");
      save.disabled = true;
      const result = await post(editDialog.dataset.url, payload);
      save.disabled = false;
      if (!result.ok) fail(editError, message(result));
      else location.reload();
    });
    document.getElementById("edit-cancel").addEventListener("click", () => editDialog.close());
    document.getElementById("delete-confirm").addEventListener("click", async (event) => {
      event.target.disabled = true;
      const result = await post(deleteDialog.dataset.url, JSON.parse(row.dataset.record));
      event.target.disabled = false;
      if (!result.ok) fail(deleteError, message(result));
      else location.reload();
    });
    document.getElementById("delete-cancel").addEventListener("click", () => deleteDialog.close());
    for (const button of document.querySelectorAll(".edit-record")) {
      button.addEventListener("click", () => openEdit(button.closest("tr")));
    }
    for (const button of document.querySelectorAll(".delete-record")) {
      button.addEventListener("click", () => openDelete(button.closest("tr")));
    }
  }

  // on a narrow screen the menu is a strip that scrolls sideways: show the current page in it
  const nav = document.querySelector(".nav");
  const current = nav && nav.querySelector("a.active");
  if (current && nav.scrollWidth > nav.clientWidth) {
    nav.scrollLeft = current.offsetLeft - (nav.clientWidth - current.offsetWidth) / 2;
  }

  if (config.page === "chat") chatPage();
  else {
    if (config.page === "measurements") measurementsPage();
    if (["meals", "routines", "notes", "goals"].includes(config.page)) recordsPage();
    document.body.dataset.ready = "true";
  }
})();
