"""Location and source fields against the people's location and source blocks, per page.

usage: fields_dateline.py SHEET NAME=RECORDS.jsonl[.gz] ...   (the first run is the baseline)

RECORDS: `parcels cross-extract` records, or the article fields kept of them
(`828-pages/fields/*.jsonl.gz`: path, fold, source, location).
"""
import csv, gzip, json, sys
csv.field_size_limit(10**9)
sheet, runs = sys.argv[1], [a.split('=', 1) for a in sys.argv[2:]]
key = lambda path: path.split('/')[-1].replace('.html.gz', '').replace('.html', '')
lab = {}
for row in csv.DictReader(open(sheet), delimiter='\t'):
    lab.setdefault(row['page'], {'location': [], 'source': []})
    if row['label'] in ('location', 'source') and row['text'].strip():
        lab[row['page']][row['label']].append(row['text'])
opener = lambda f: gzip.open(f, 'rt', encoding='utf-8') if f.endswith('.gz') else open(f, encoding='utf-8')
recs = {name: {key(json.loads(l)['path']): json.loads(l) for l in opener(f)} for name, f in runs}
def agrees(field, blocks):
    f = field.lower()
    return any(f in b.lower() or b.lower() in f for b in blocks)
print('| run | era | pages | field | pages with a labelled block | filled there | agrees with a block | filled on pages without one |')
print('|---|---|---:|---|---:|---:|---:|---:|')
for name, _ in runs:
    for era, test in (('2008', lambda p: '-' in p), ('modern', lambda p: '-' not in p)):
        pages = [p for p in recs[name] if test(p) and p in lab]
        for field in ('location', 'source'):
            has = [p for p in pages if lab[p][field]]
            filled = [p for p in has if recs[name][p][field]]
            ok = [p for p in filled if agrees(recs[name][p][field], lab[p][field])]
            extra = [p for p in pages if not lab[p][field] and recs[name][p][field]]
            print(f'| {name} | {era} | {len(pages)} | {field} | {len(has)} | {len(filled)} | {len(ok)} | {len(extra)} |')
base = runs[0][0]
for name, _ in runs[1:]:
    print(f'\nPages whose fields `{name}` changes against `{base}` (location | source before → after; people\'s blocks):\n')
    print('| page | location | source before | source after | people\'s location / source blocks |')
    print('|---|---|---|---|---|')
    for p, r in sorted(recs[name].items()):
        o = recs[base][p]
        if (o['location'], o['source']) != (r['location'], r['source']):
            cut = lambda s: (s or '–').replace('|', '/')[:60]
            people = '; '.join(cut(t) for t in lab.get(p, {}).get('location', []) + lab.get(p, {}).get('source', [])) or '–'
            print(f"| {p[:8]} | {cut(r['location'])} | {cut(o['source'])} | {cut(r['source'])} | {people} |")
