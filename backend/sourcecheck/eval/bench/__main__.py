from sourcecheck.eval.bench import main

main()
