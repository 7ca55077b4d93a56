#!/bin/sh
# Builds the fuzz seed corpora tests/fuzz/corpus/<target>/ (not committed) from the project's own
# test pages (tests/pages/) and the small synthetic pages and sheets in tests/fuzz/seeds/, plus a
# gzipped page. Run from the repository root: sh tests/fuzz/seeds.sh
set -eu
fuzz=tests/fuzz
for t in page_divide views extract; do
    mkdir -p "$fuzz/corpus/$t"
    # Named after their path (tests/pages/table.html and tests/pages/css/table.html both exist).
    for f in $(find tests/pages "$fuzz/seeds/pages" -type f -name '*.html'); do
        cp "$f" "$fuzz/corpus/$t/$(echo "$f" | tr / _)"
    done
    gzip -9 -n -c "$fuzz/seeds/pages/news.html" > "$fuzz/corpus/$t/news.html.gz"
done
mkdir -p "$fuzz/corpus/css"
find tests/pages -type f -name '*.css' -exec cp {} "$fuzz/corpus/css/" \;
cp "$fuzz"/seeds/css/*.css "$fuzz/corpus/css/"
# The <style> sheets of the test pages, one file each.
for f in $(find tests/pages "$fuzz/seeds/pages" -type f -name '*.html'); do
    sed -n '/<style[^>]*>/,/<\/style>/p' "$f" | sed -e 's/.*<style[^>]*>//' -e 's/<\/style>.*//' > "$fuzz/corpus/css/style-$(basename "$f" .html).css"
    [ -s "$fuzz/corpus/css/style-$(basename "$f" .html).css" ] || rm "$fuzz/corpus/css/style-$(basename "$f" .html).css"
done
for t in page_divide css views extract; do
    echo "$t: $(ls "$fuzz/corpus/$t" | wc -l) seeds"
done
