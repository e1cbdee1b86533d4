"""`kernelboard`, the command-line client of the API. Standard library only: it never imports Django."""
