package accuracy
