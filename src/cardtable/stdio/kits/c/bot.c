/* A cardtable bot in C (one file, standard library only) speaking the stdio protocol.
 *
 * It answers every request of Kuhhandel and Cunegonda with the simplest legal action: the first
 * of the request's choices when it lists them, else a fixed rule per request kind. Protocol,
 * request kinds and fields: docs/stdio-bots.md. Build and try it:
 *
 *     cc -O2 -o bot bot.c
 *     cardtable play kuhhandel --bots "cmd:./bot,heuristic,random"
 *     cardtable arena kuhhandel --bots "cmd:./bot,heuristic" --games 10
 *
 * The JSON reader below is written for this bot: it parses one line into a tree of nodes that
 * point into the line (each node knows its raw text, so a choice is answered by copying it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a tiny JSON reader -------------------------------------------------------------------- */

enum kind { J_NULL, J_BOOL, J_NUMBER, J_STRING, J_ARRAY, J_OBJECT };

typedef struct node {
    enum kind kind;
    const char *start, *end;       /* the raw text of the value */
    const char *key;               /* an object member's key (raw, without quotes) */
    size_t key_len;
    struct node *child, *next;     /* first element/member, next sibling */
} node;

typedef struct {
    const char *p;
    node *pool;
    size_t used, size;
    int failed;
} parser;

static node *new_node(parser *ps) {
    if (ps->used == ps->size) {
        ps->failed = 1;
        return NULL;
    }
    node *n = &ps->pool[ps->used++];
    memset(n, 0, sizeof *n);
    return n;
}

static void skip_space(parser *ps) {
    while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r') ps->p++;
}

static const char *skip_string(parser *ps) { /* at the opening quote; returns the closing one */
    const char *q = ps->p + 1;
    while (*q && *q != '"') q += (*q == '\\' && q[1]) ? 2 : 1;
    if (*q != '"') ps->failed = 1;
    return q;
}

static node *parse_value(parser *ps);

static node *parse_container(parser *ps, enum kind kind, char close) {
    node *n = new_node(ps), *last = NULL;
    if (!n) return NULL;
    n->kind = kind;
    n->start = ps->p++;
    skip_space(ps);
    if (*ps->p == close) {
        n->end = ++ps->p;
        return n;
    }
    for (;;) {
        const char *key = NULL;
        size_t key_len = 0;
        skip_space(ps);
        if (kind == J_OBJECT) {
            if (*ps->p != '"') { ps->failed = 1; return NULL; }
            const char *q = skip_string(ps);
            if (ps->failed) return NULL;
            key = ps->p + 1;
            key_len = (size_t)(q - key);
            ps->p = q + 1;
            skip_space(ps);
            if (*ps->p++ != ':') { ps->failed = 1; return NULL; }
        }
        node *child = parse_value(ps);
        if (!child) return NULL;
        child->key = key;
        child->key_len = key_len;
        if (last) last->next = child; else n->child = child;
        last = child;
        skip_space(ps);
        if (*ps->p == ',') { ps->p++; continue; }
        if (*ps->p == close) { n->end = ++ps->p; return n; }
        ps->failed = 1;
        return NULL;
    }
}

static node *parse_value(parser *ps) {
    skip_space(ps);
    char c = *ps->p;
    if (c == '{') return parse_container(ps, J_OBJECT, '}');
    if (c == '[') return parse_container(ps, J_ARRAY, ']');
    node *n = new_node(ps);
    if (!n) return NULL;
    n->start = ps->p;
    if (c == '"') {
        n->kind = J_STRING;
        ps->p = skip_string(ps) + 1;
    } else if (strncmp(ps->p, "true", 4) == 0 || strncmp(ps->p, "false", 5) == 0) {
        n->kind = J_BOOL;
        ps->p += (c == 't') ? 4 : 5;
    } else if (strncmp(ps->p, "null", 4) == 0) {
        n->kind = J_NULL;
        ps->p += 4;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
        n->kind = J_NUMBER;
        while (strchr("+-0123456789.eE", *ps->p) && *ps->p) ps->p++;
    } else {
        ps->failed = 1;
        return NULL;
    }
    n->end = ps->p;
    return ps->failed ? NULL : n;
}

/* The member `key` of an object (NULL if absent or not an object). */
static node *get(node *object, const char *key) {
    if (!object || object->kind != J_OBJECT) return NULL;
    size_t len = strlen(key);
    for (node *m = object->child; m; m = m->next)
        if (m->key_len == len && strncmp(m->key, key, len) == 0) return m;
    return NULL;
}

static int is(node *n, const char *text) { /* a string node equal to `text` */
    size_t len = strlen(text);
    return n && n->kind == J_STRING && (size_t)(n->end - n->start) == len + 2 &&
           strncmp(n->start + 1, text, len) == 0;
}

static long number(node *n) { return n ? strtol(n->start, NULL, 10) : 0; }

static void put_raw(node *n) { fwrite(n->start, 1, (size_t)(n->end - n->start), stdout); }

/* ---- the bot ------------------------------------------------------------------------------- */

static int descending(const void *a, const void *b) {
    long x = *(const long *)a, y = *(const long *)b;
    return (x < y) - (x > y);
}

static size_t notes_of(node *wallet, long *notes, size_t most) {
    size_t n = 0;
    for (node *e = wallet ? wallet->child : NULL; e && n < most; e = e->next) notes[n++] = number(e);
    qsort(notes, n, sizeof *notes, descending);
    return n;
}

static void answer(node *id, node *observation, node *request) {
    node *choices = get(request, "choices"), *info = get(request, "info");
    node *kind = get(request, "kind");
    long notes[256];
    fputs("{\"type\":\"action\",\"id\":", stdout);
    if (id) put_raw(id); else fputs("null", stdout);
    fputs(",\"action\":", stdout);
    if (choices && choices->kind == J_ARRAY && choices->child) {
        put_raw(choices->child); /* every legal action is listed: the first */
    } else if (is(kind, "bid")) { /* Kuhhandel auction: the minimum while it is cheap */
        long least = number(get(info, "min")), money = number(get(info, "money"));
        node *most = get(info, "max");
        if (least <= money / 4 && (!most || most->kind == J_NULL || least <= number(most)))
            printf("{\"kind\":\"bid\",\"amount\":%ld}", least);
        else
            fputs("{\"kind\":\"pass\"}", stdout);
    } else if (is(kind, "pay")) { /* info amount (or count: that many notes), wallet */
        size_t n = notes_of(get(info, "wallet"), notes, 256), k = 0;
        fputs("{\"kind\":\"pay\",\"notes\":[", stdout);
        if (get(info, "count")) { /* a pedigree: that many notes, the smallest */
            long count = number(get(info, "count"));
            for (k = 0; k < (size_t)count && k < n; k++)
                printf("%s%ld", k ? "," : "", notes[n - 1 - k]);
        } else { /* largest first until covered: no note could be left out */
            long amount = number(get(info, "amount")), total = 0;
            for (k = 0; k < n && total < amount; k++) {
                printf("%s%ld", k ? "," : "", notes[k]);
                total += notes[k];
            }
        }
        fputs("]}", stdout);
    } else if (is(kind, "offer")) { /* a cow trade's offer: none is allowed */
        fputs("{\"kind\":\"offer\",\"notes\":[]}", stdout);
    } else if (is(kind, "respond")) {
        fputs("{\"kind\":\"accept\"}", stdout);
    } else if (is(kind, "pass")) { /* Cunegonda: pass info.count cards of the hand */
        long count = number(get(info, "count"));
        node *card = get(observation, "hand") ? get(observation, "hand")->child : NULL;
        fputs("{\"pass\":[", stdout);
        for (long k = 0; k < count && card; k++, card = card->next) {
            if (k) putchar(',');
            put_raw(card);
        }
        fputs("]}", stdout);
    } else {
        fputs("null", stdout);
    }
    fputs("}\n", stdout);
}

int main(void) {
    size_t capacity = 0, pool_size = 0;
    char *line = NULL;
    node *pool = NULL;
    ssize_t length;
    while ((length = getline(&line, &capacity, stdin)) > 0) {
        if (pool_size < (size_t)length) { /* never more nodes than characters */
            pool_size = (size_t)length;
            pool = realloc(pool, pool_size * sizeof *pool);
            if (!pool) return 1;
        }
        parser ps = {line, pool, 0, pool_size, 0};
        node *message = parse_value(&ps);
        if (!message || ps.failed) {
            fprintf(stderr, "bot.c: cannot parse: %.80s\n", line);
            return 1;
        }
        node *type = get(message, "type");
        if (is(type, "hello")) { /* a game starts: game, rules, seat, seats */
            fputs("{\"type\":\"ready\",\"name\":\"starter-c\",\"keep\":\"match\"}\n", stdout);
        } else if (is(type, "request")) {
            answer(get(message, "id"), get(message, "observation"), get(message, "request"));
        } else if (is(type, "bye")) {
            break;
        } /* event, game_end: nothing to answer */
        fflush(stdout);
    }
    free(line);
    free(pool);
    return 0;
}
