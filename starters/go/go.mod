module sorry-arena/starter

go 1.19
