# tools/gnuplot/sweep.gp - the curves of `p2psim sweep --plot`: the
# measured value against the first swept key, one curve per combination
# of the other keys (and per measure).
#
#   gnuplot -e "data='D'; ncols=3; out='s.png'; xlab='size (bytes)'; \
#       ylab='GB/s'; logx=1; title='...'" sweep.gp
#
# D: whitespace-separated columns, a header line of quoted curve titles,
# then rows "x y1 y2 ..." (ncols columns in all; NaN where a point is
# missing); with xtic=1 the first column is a label and x is the row
# number. `p2psim sweep --plot` writes it.
if (!exists("out")) out = 'sweep.png'
if (!exists("logx")) logx = 0
if (!exists("xtic")) xtic = 0
if (!exists("title")) title = ''
set terminal pngcairo size 900, 600 font ",10" noenhanced
set output out
set title title
set xlabel xlab
set ylabel ylab
set grid
set key below
set datafile missing 'NaN'
if (logx) {
    set logscale x 2
    set format x '%.0b %BB'
}
if (xtic) {
    set offsets 0.3, 0.3, 0, 0
    plot for [k = 2:ncols] data using 0:k:xticlabels(1) with linespoints \
        pointtype 7 title columnheader(k)
} else {
    plot for [k = 2:ncols] data using 1:k with linespoints pointtype 7 \
        title columnheader(k)
}
