# tools/gnuplot/util.gp - link utilisation over simulated time, drawn from
# a counters file (p2psim run|bench|sweep --counters FILE --plot OUT.png).
# Set by the caller: data (CSV: t_us, then one column per link direction,
# utilisation in percent), out (the PNG), n (columns).
set terminal pngcairo size 1200,700 noenhanced
set output out
set datafile separator ','
set key outside right top autotitle columnhead
set title 'Link utilisation over simulated time (transmitter busy)'
set xlabel 'simulated time (us)'
set ylabel 'utilisation (%)'
set yrange [0:105]
set grid
plot for [i=2:n] data using 1:i with lines lw 2
