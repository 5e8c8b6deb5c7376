/**
 * The page's script: draws the page from the JSON embedded in it (`#agent-tape-data`). Values
 * only ever become text nodes and attributes, never HTML; a decision's whole request and answer
 * are built when it is opened, so a long run opens fast. Plain ES2017 with no dependency; its
 * hash is in the page's CSP, which allows no other script and no request.
 */
export const PAGE_SCRIPT = String.raw`(function () {
  'use strict'
  var data = JSON.parse(document.getElementById('agent-tape-data').textContent)
  var REF = '\u0000'
  var ROLES = { recording: 'Recording', run: 'This run', before: 'Before', after: 'After' }

  // Every value reaches the page as a text node or an attribute: nothing is parsed as HTML.
  function el(tag, props) {
    var node = document.createElement(tag)
    if (props) {
      Object.keys(props).forEach(function (k) {
        var v = props[k]
        if (v === undefined || v === null || v === false) return
        if (k === 'class') node.className = v
        else if (k.slice(0, 2) === 'on') node.addEventListener(k.slice(2), v)
        else node.setAttribute(k, v === true ? '' : String(v))
      })
    }
    for (var i = 2; i < arguments.length; i++) add(node, arguments[i])
    return node
  }
  function add(node, child) {
    if (child === undefined || child === null || child === false) return
    if (Array.isArray(child)) child.forEach(function (c) { add(node, c) })
    else if (child instanceof Node) node.append(child)
    else node.append(marked(String(child)))
  }
  // Redaction markers stand out, as in the terminal.
  function marked(text) {
    var parts = text.split(/(\[REDACTED(?::[^\]]*)?\])/)
    if (parts.length === 1) return document.createTextNode(text)
    var span = document.createDocumentFragment()
    parts.forEach(function (part, i) {
      if (i % 2) span.append(el('mark', { class: 'redacted' }, document.createTextNode(part)))
      else if (part) span.append(document.createTextNode(part))
    })
    return span
  }
  function resolve(value) {
    if (Array.isArray(value)) return value.map(resolve)
    if (!value || typeof value !== 'object') return value
    var keys = Object.keys(value)
    if (keys.length === 1 && keys[0] === REF) return resolve(data.shared[value[REF]])
    var out = {}
    keys.forEach(function (k) { out[k] = resolve(value[k]) })
    return out
  }
  function json(value, compact) {
    if (value === undefined) return 'undefined'
    return compact ? JSON.stringify(value) : JSON.stringify(value, null, 2)
  }
  function clip(text, max) {
    return text.length > max ? text.slice(0, max - 1) + '\u2026' : text
  }
  function asObject(value) {
    return value && typeof value === 'object' && !Array.isArray(value) ? value : {}
  }
  function plural(n, word) {
    return n + ' ' + word + (n === 1 ? '' : 's')
  }
  function laneName(lane) {
    return lane === '' ? 'main' : lane
  }
  function place(card) {
    return 'step ' + card.step + (card.lane ? ' \u00b7 lane ' + card.lane : '')
  }

  // ---- the head of a side: the cassette's header and totals ----
  function head(side) {
    var h = side.header
    var rows = [
      ['file', side.file], ['test', h.test], ['source', h.source], ['recorded', h.recordedAt], ['harness', h.harness],
      ['runtime', h.runtime], ['sdks', h.sdks], ['env', h.env], ['decisions', h.decisions],
      ['tokens', h.tokens], ['cost', h.cost], ['ignored', h.ignored], ['time', h.time],
    ]
    return el('section', { class: 'head', 'aria-label': ROLES[side.role] + ': ' + side.file },
      el('h2', null, ROLES[side.role]),
      el('dl', null, rows.filter(function (r) { return r[1] }).map(function (r) {
        return [el('dt', null, r[0]), el('dd', null, r[1])]
      })))
  }

  // ---- a card: one decision in a few lines, and the whole of it on request ----
  function card(c, side, sideIndex, highlight, changedPaths) {
    var id = 'd' + sideIndex + '-' + c.seq
    var changed = highlight || []
    var fields = el('dl', { class: 'fields' })
    function field(name, label, value) {
      if (value === undefined || value === null || value === '') return
      var isChanged = changed.indexOf(name) !== -1
      fields.append(
        el('dt', { class: isChanged ? 'changed' : null, 'data-field': name }, label,
          isChanged ? el('span', { class: 'sr-only' }, ' (changed)') : null),
        el('dd', { class: isChanged ? 'changed' : null, 'data-field': name }, value))
    }
    if (c.model) modelFields(c, field, changedPaths || [])
    if (c.tool) field('args', 'args', clip(json(c.tool.args, true), 400))
    if (c.env) Object.keys(c.env).forEach(function (k) {
      field('env', k, c.env[k] === null ? 'unset' : 'set (' + c.env[k] + ')')
    })
    if (!c.model && !c.tool && !c.env) field('input', 'input', clip(json(resolve(c.whole.in), true), 300))
    if (!c.model) {
      var out = c.output !== undefined ? c.output : resolve(c.whole.out)
      if (out !== undefined) field(c.tool ? 'result' : 'output', c.tool ? 'result' : 'output', clip(outputText(out), 400))
    }
    if (c.error) field('error', 'error', c.error.name + ': ' + c.error.message)
    var bar = c.missed ? null : el('div', { class: 'bar', 'aria-hidden': 'true' })
    if (bar) bar.style.width = Math.max(0.5, (100 * c.ms) / side.maxMs) + '%'
    var whole = el('details', { class: 'whole' },
      el('summary', { 'aria-label': 'Open decision #' + c.seq + ' whole' }, c.missed ? 'The whole request' : 'The whole decision'))
    whole.addEventListener('toggle', function () {
      if (whole.open && whole.children.length === 1) whole.append(wholeDecision(c, changedPaths || []))
    })
    return el('article', { class: 'card kind-' + (['llm', 'tool', 'env'].indexOf(c.kind) === -1 ? 'other' : c.kind) + (c.missed ? ' missed' : ''), id: id, 'aria-labelledby': id + '-t', 'data-seq': c.seq, 'data-kind': c.kind },
      el('h4', { class: 'card-title', id: id + '-t' },
        el('span', { class: 'seq' }, '#' + c.seq), el('span', { class: 'name' }, c.label),
        c.missed ? el('span', { class: 'badge missed' }, 'missed: never recorded') : null),
      el('div', { class: 'card-meta' },
        el('span', { class: changed.indexOf('position') !== -1 ? 'changed' : null }, place(c)),
        el('span', null, c.missed ? 'not answered' : c.ms + ' ms'), el('span', { class: 'mono' }, c.key)),
      bar, fields, whole)
  }
  function modelFields(c, field, changedPaths) {
    var r = c.model.request
    var a = c.model.answer
    var changed = changedMessages(c, changedPaths)
    field('model', 'model', (r.model || '') + (a && a.model && a.model !== r.model ? ' \u2192 ' + a.model : ''))
    field('request', 'request', [r.api, r.method, r.path].filter(Boolean).join(' '))
    field('messages', 'messages', String(r.messages) + (changed ? ', changed: ' + changed : '') +
      (r.last ? ', last ' + r.last.role + ': ' + clip(r.last.text, 240) : ''))
    field('tools', 'tools', c.model.tools.length ? c.model.tools.join(', ') : 'none')
    if (!a) return
    field('answer', 'answer', (a.streamed ? 'streamed (' + plural(a.stream ? a.stream.count : 0, 'event') + ')' : 'json') + ' \u00b7 ' + a.status)
    field('text', 'text', a.text ? clip(a.text, 600) : '')
    field('calls', 'calls', a.toolCalls.map(function (t) { return t.name + ' ' + compactArgs(t.arguments) }).join('\n'))
    field('finish', 'finish', a.finishReason)
    field('tokens', 'tokens', a.usage ? a.usage.input + ' in / ' + a.usage.output + ' out' : '')
    field('error', 'error', a.error)
  }
  // Which messages of a request an input change touched: 'message 1 (system)', 'system prompt'.
  function changedMessages(c, paths) {
    var input
    var names = []
    paths.forEach(function (p) {
      var m = /^body\.(messages|input|contents)\[(\d+)\]/.exec(p)
      var name = /^body\.(system|instructions|systemInstruction|system_instruction)\b/.test(p) ? 'system prompt' : null
      if (m) {
        input = input || asObject(resolve(c.whole.in))
        var item = asObject((asObject(input.body)[m[1]] || [])[+m[2]])
        name = 'message ' + (+m[2] + 1) + ' (' + (item.role || item.type || 'item') + ')'
      }
      if (name && names.indexOf(name) === -1) names.push(name)
    })
    return names.join(', ')
  }
  function compactArgs(text) {
    try { return JSON.stringify(JSON.parse(text)) } catch (e) { return text }
  }
  function outputText(out) {
    var o = asObject(out)
    if (typeof o.status === 'number' && o.headers) {
      var body = asObject(o.body)
      var shown = 'json' in body ? json(body.json, true) : 'text' in body ? body.text : ''
      return 'status ' + o.status + (shown ? ' \u00b7 ' + shown : '')
    }
    return typeof out === 'string' ? out : json(out, true)
  }

  // ---- the whole decision: the full request, the whole answer, the recorded JSON ----
  var SYSTEM = ['system', 'instructions', 'systemInstruction', 'system_instruction']
  var CONVERSATION = ['messages', 'input', 'contents']
  function wholeDecision(c, changedPaths) {
    var input = resolve(c.whole.in)
    var out = resolve(c.whole.out)
    var box = el('div', { class: 'whole-body' })
    if (c.kind === 'llm' && input && typeof input === 'object' && 'body' in input) {
      add(box, request(input, changedPaths))
      if (out !== undefined) add(box, answer(c, out))
    } else {
      box.append(part('Input', el('pre', null, json(input))))
      if (out !== undefined) box.append(part(c.tool ? 'Result' : 'Output', el('pre', null, typeof out === 'string' ? out : json(out))))
    }
    if (c.whole.err) box.append(part('Error', el('pre', null, c.whole.err.name + ': ' + c.whole.err.message)))
    var raw = el('details', null, el('summary', null, 'Recorded JSON'))
    raw.addEventListener('toggle', function () {
      if (raw.open && raw.children.length === 1) raw.append(el('pre', null, json({ in: input, out: out, err: c.whole.err })))
    })
    box.append(el('div', { class: 'part' }, raw))
    return box
  }
  function part(title) {
    var node = el('section', { class: 'part' }, el('h5', null, title))
    for (var i = 1; i < arguments.length; i++) add(node, arguments[i])
    return node
  }
  function request(input, changedPaths) {
    var body = asObject(input.body)
    var nodes = [part('Request', el('p', { class: 'mono' }, [input.method, input.path].filter(Boolean).join(' ') || input.api || ''),
      input.headers ? el('pre', null, json(input.headers)) : null)]
    var rest = Object.assign({}, body)
    SYSTEM.forEach(function (k) {
      if (!(k in body)) return
      nodes.push(part('System prompt', el('pre', null, textOf(body[k]))))
      delete rest[k]
    })
    CONVERSATION.forEach(function (k) {
      if (!Array.isArray(body[k])) return
      delete rest[k]
      nodes.push(part('Messages (' + body[k].length + ')', body[k].map(function (m, i) {
        return message(m, changedPaths.some(function (p) { return p.indexOf('body.' + k + '[' + i + ']') === 0 }))
      })))
    })
    if (Array.isArray(body.tools)) {
      delete rest.tools
      nodes.push(part('Tools (' + body.tools.length + ')', body.tools.map(function (t) {
        var o = asObject(t)
        var name = o.name || asObject(o.function).name || o.type || 'tool'
        return el('details', null, el('summary', null, name), el('pre', null, json(t)))
      })))
    }
    if (Object.keys(rest).length) nodes.push(part('Parameters', el('pre', null, json(rest))))
    return nodes
  }
  function message(m, changed) {
    var o = asObject(m)
    var role = o.role || o.type || 'item'
    var content = 'content' in o ? o.content : o.parts
    var rest = Object.assign({}, o)
    delete rest.role
    delete rest.content
    delete rest.parts
    var blocks = []
    if (typeof content === 'string') blocks.push(el('pre', null, content))
    else if (Array.isArray(content)) content.forEach(function (p) {
      var po = asObject(p)
      blocks.push(el('pre', null, typeof po.text === 'string' && Object.keys(po).length <= 2 ? po.text : json(p)))
    })
    else if (content !== undefined && content !== null) blocks.push(el('pre', null, json(content)))
    if (Object.keys(rest).length) blocks.push(el('pre', null, json(rest)))
    return el('div', { class: 'message' + (changed ? ' changed' : '') },
      el('div', { class: 'role' }, role, changed ? el('span', { class: 'sr-only' }, ' (changed)') : null), blocks)
  }
  function textOf(value) {
    if (typeof value === 'string') return value
    if (Array.isArray(value)) return value.map(textOf).join('\n')
    var o = asObject(value)
    if (typeof o.text === 'string') return o.text
    if (Array.isArray(o.parts)) return textOf(o.parts)
    return json(value)
  }
  function answer(c, out) {
    var a = c.model && c.model.answer
    var o = asObject(out)
    var nodes = [el('p', null, 'status ' + o.status + (a && a.finishReason ? ' \u00b7 finish ' + a.finishReason : '') +
      (a && a.usage ? ' \u00b7 ' + a.usage.input + ' in / ' + a.usage.output + ' out tokens' : ''))]
    if (a && a.text) nodes.push(el('pre', null, a.text))
    if (a) a.toolCalls.forEach(function (t) {
      var args
      try { args = json(JSON.parse(t.arguments)) } catch (e) { args = t.arguments }
      nodes.push(el('div', { class: 'message' }, el('div', { class: 'role' }, 'tool call ' + t.name + (t.id ? ' (' + t.id + ')' : '')), el('pre', null, args)))
    })
    if (a && a.error) nodes.push(el('pre', null, a.error))
    var body = asObject(o.body)
    if (a && a.stream) {
      var items = body[a.stream.key] || []
      var events = el('details', null, el('summary', null, plural(items.length, 'stream event') + ', as recorded'))
      events.addEventListener('toggle', function () {
        if (!events.open || events.children.length > 1) return
        events.append(el('ol', { class: 'events mono' }, items.map(function (item) {
          var value = 'json' in item ? json(item.json, true) : 'data' in item ? item.data : item.text
          return el('li', null, '+' + item.t + ' ms ' + (item.event ? item.event + ' ' : '') + value)
        })))
      })
      nodes.push(events)
      if (body.end) nodes.push(el('pre', null, 'stream cut off: ' + json(body.end, true)))
    } else if (o.body !== undefined) {
      nodes.push(el('details', null, el('summary', null, 'Response body'), el('pre', null, json('json' in body ? body.json : body))))
    }
    if (o.headers) nodes.push(el('details', null, el('summary', null, 'Response headers'), el('pre', null, json(o.headers))))
    return part(a && a.streamed ? 'Answer, reassembled from the stream' : 'Answer', nodes)
  }

  // ---- a run: steps down the page, lanes side by side ----
  function timeline(side, sideIndex) {
    var lanes = side.lanes
    var grid = el('div', { class: 'timeline', 'aria-label': 'Decisions by step' + (lanes.length > 1 ? ' and lane' : '') })
    grid.style.setProperty('--lanes', String(Math.max(1, lanes.length)))
    if (lanes.length > 1) {
      grid.append(el('div', { 'aria-hidden': 'true' }))
      lanes.forEach(function (l) { grid.append(el('div', { class: 'lane-head', 'aria-hidden': 'true' }, 'lane ' + laneName(l))) })
    }
    var steps = []
    var byStep = {}
    side.cards.forEach(function (c) {
      var row = byStep[c.step]
      if (!row) {
        row = byStep[c.step] = { step: c.step, cells: lanes.map(function () { return [] }) }
        steps.push(row)
      }
      row.cells[lanes.indexOf(c.lane)].push(c)
    })
    steps.sort(function (x, y) { return x.step - y.step })
    steps.forEach(function (row) {
      grid.append(el('section', { class: 'step', 'aria-label': 'Step ' + row.step },
        el('h3', { class: 'step-label' }, 'step ' + row.step),
        row.cells.map(function (cards, i) {
          return el('div', { class: 'cell', 'data-lane': laneName(lanes[i]) },
            cards.length && lanes.length > 1 ? el('div', { class: 'cell-lane' }, 'lane ' + laneName(lanes[i])) : null,
            cards.map(function (c) { return card(c, side, sideIndex) }))
        })))
    })
    return grid
  }

  // ---- two runs: aligned decisions side by side, a verdict each ----
  function rows(a, b) {
    return el('ol', { class: 'rows', 'aria-label': 'Decisions, aligned' }, data.rows.map(function (row) {
      var x = row.a === undefined ? undefined : a.cards[row.a]
      var y = row.b === undefined ? undefined : b.cards[row.b]
      var any = y || x
      var paths = row.input.map(function (l) { return l[0] })
      var seq = x && y && x.seq !== y.seq ? '#' + x.seq + ' \u2192 #' + y.seq : '#' + any.seq
      return el('li', { class: 'row v-' + row.verdict.replace(/ /g, '-'), 'data-verdict': row.verdict },
        el('p', { class: 'row-verdict' }, el('span', { class: 'badge' }, row.verdict), el('strong', null, seq), place(any) + ' \u00b7 ' + any.label),
        el('div', { class: 'pair' },
          el('div', { class: 'side' }, el('div', { class: 'side-label' }, ROLES[a.role]),
            x ? card(x, a, 0, row.fields, paths) : el('div', { class: 'empty' }, 'not in ' + ROLES[a.role].toLowerCase())),
          el('div', { class: 'side' }, el('div', { class: 'side-label' }, ROLES[b.role]),
            y ? card(y, b, 1, row.fields, paths) : el('div', { class: 'empty' }, row.verdict === 'not reached' ? 'the run stopped before this decision' : 'not in ' + ROLES[b.role].toLowerCase()))),
        changes(row, a, b))
    }))
  }
  function changes(row, a, b) {
    if (!row.input.length && !row.output.length) return null
    var box = el('div', { class: 'changes' })
    var names = ROLES[a.role].toLowerCase() + ' \u2192 ' + ROLES[b.role].toLowerCase()
    if (row.input.length) box.append(el('h5', null, 'Input changed (' + names + ')'), el('ul', { class: 'mono' }, row.input.map(function (l) {
      return el('li', null, l[0] + ': ', el('del', null, l[1]), ' \u2192 ', el('ins', null, l[2]))
    })))
    if (row.output.length) box.append(el('h5', null, 'Answer changed'), el('ul', { class: 'mono' }, row.output.map(function (l) { return el('li', null, l) })))
    return box
  }

  var app = document.getElementById('app')
  var sides = data.sides
  app.append(
    el('a', { class: 'skip', href: '#decisions' }, 'Skip to the decisions'),
    el('header', null,
      el('h1', null, data.title),
      data.verdict ? el('p', { class: 'verdict-line' }, data.verdict) : null))
  var heads = el('div', { class: 'heads' }, sides.map(head))
  heads.style.setProperty('--sides', String(sides.length))
  app.append(heads)
  var body = el('section', { id: 'decisions', 'aria-label': 'Decisions' })
  body.append(data.kind === 'compare' ? rows(sides[0], sides[1]) : timeline(sides[0], 0))
  app.append(body, el('footer', null, 'Written by ' + data.generator + '. Self-contained: this page loads nothing from anywhere.'))
  document.documentElement.setAttribute('data-ready', 'true')
})()
`
