BsquaresJëk9>
pm<Rrø<Jø-?£K?rMH@