# tools/gnuplot/heatmap.gp - heatmaps of the matrices of `p2psim bench`
# (--png): one panel per matrix, source GPU down, destination GPU across,
# each cell labelled with its value. Colour scales leave the diagonal out
# (on-GPU copies are 10-100x faster than any link and would wash out the
# rest); the diagonal cells keep their labels.
#
#   gnuplot -e "dir='D'; ngpu=8; names='uni_p2p_disabled_GBps ...'; \
#       ranges='lo1 hi1 ...'; out='m.png'" heatmap.gp
#
# ranges: the colour range of each matrix (p2psim bench takes the
# off-diagonal cells' minimum and maximum, widened when they are equal).
# D/NAME.dat: one matrix per file, whitespace-separated, a row per source
# GPU, NaN where a cell was not measured; `p2psim bench --png` writes them.
if (!exists("dir")) dir = '.'
if (!exists("out")) out = 'bench.png'
n = words(names)
cols = (n >= 3) ? 3 : n
rows = (n + cols - 1) / cols
set terminal pngcairo size 560 * cols, 500 * rows font ",9" noenhanced
set output out
set multiplot layout rows, cols
# Light colours, so that the black labels stay readable on every cell.
set palette defined (0 '#ffffcc', 1 '#fed976', 2 '#fd8d3c', 3 '#f03b20')
set xtics 1 out nomirror
set ytics 1 out nomirror
set xrange [-0.5 : ngpu - 0.5]
set yrange [ngpu - 0.5 : -0.5]
set xlabel 'destination GPU'
set ylabel 'source GPU'
set cbtics out
do for [k = 1:n] {
    name = word(names, k)
    f = dir . '/' . name . '.dat'
    set title name
    set cbrange [real(word(ranges, 2 * k - 1)) : real(word(ranges, 2 * k))]
    plot f matrix using 1:2:($1 == $2 ? NaN : $3) with image notitle, \
         f matrix using 1:2:($3 == $3 ? sprintf("%.2f", $3) : "") \
           with labels font ",7" textcolor rgb '#000000' notitle
}
unset multiplot
