"""Money: the ledger of cost lines and its formula language, discounting and instalments, the bill of
materials, the value of a cluster hour and the cost of a run. No physics."""
