"""`python -m tutor` behaves exactly like the `autograd-tutor` command."""
from tutor.cli import main

main()
